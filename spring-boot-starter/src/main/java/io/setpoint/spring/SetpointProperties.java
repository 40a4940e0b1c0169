package io.setpoint.spring;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The {@code setpoint.*} properties: where the agent is and how to reach it, and how the manager
 * runs. A value that breaks a rule fails startup with a message that names the property.
 *
 * @param address the agent's {@code host:port} (default {@code localhost:8500}), or several
 *     agents of one cluster (a comma-separated string or a YAML list); a leading {@code https://}
 *     means TLS, as for {@link io.setpoint.client.SetpointClient.Builder#address}
 * @param token the ACL token sent with every call; empty for none
 * @param tls the CA to trust and the client certificate for mutual TLS
 * @param deadline how long a unary call may take (default 30 s)
 * @param manager how the controller manager runs
 * @param health how the {@code setpoint} health indicator checks the agent
 */
@ConfigurationProperties("setpoint")
public record SetpointProperties(
    @DefaultValue("localhost:8500") List<String> address,
    String token,
    @DefaultValue Tls tls,
    @DefaultValue("30s") Duration deadline,
    @DefaultValue ManagerProperties manager,
    @DefaultValue HealthProperties health) {

  /** Checks every value, naming the property that breaks a rule. */
  public SetpointProperties {
    address = address == null ? List.of() : List.copyOf(address);
    if (address.isEmpty() || address.stream().anyMatch(a -> a == null || a.isBlank())) {
      throw new IllegalArgumentException("setpoint.address must name at least one agent as host:port, with no empty entry, was "
          + address);
    }
    token = token == null ? "" : token.strip();
    positive("setpoint.deadline", deadline);
  }

  /** The properties, with the token masked: they may end up in a log. */
  @Override
  public String toString() {
    return "SetpointProperties[address=" + address + ", token=" + (token.isEmpty() ? "" : "******") + ", tls=" + tls
        + ", deadline=" + deadline + ", manager=" + manager + ", health=" + health + "]";
  }

  /** The addresses as the client's builder takes them: comma-separated. */
  String addressList() {
    return String.join(",", address.stream().map(String::strip).toList());
  }

  /**
   * TLS to the agent. Without any of these, plaintext unless the address starts with {@code https://}.
   *
   * @param ca the CA certificate(s) (PEM) to trust instead of the JVM's
   * @param clientCertificate the client certificate (chain, PEM) for mutual TLS; needs {@code clientKey}
   * @param clientKey the client certificate's private key (PEM); needs {@code clientCertificate}
   */
  public record Tls(Path ca, Path clientCertificate, Path clientKey) {
    /** Checks that the files exist and that the certificate and key come together. */
    public Tls {
      readable("setpoint.tls.ca", ca);
      if ((clientCertificate == null) != (clientKey == null)) {
        throw new IllegalArgumentException(
            "setpoint.tls.client-certificate and setpoint.tls.client-key must be set together, or neither");
      }
      readable("setpoint.tls.client-certificate", clientCertificate);
      readable("setpoint.tls.client-key", clientKey);
    }
  }

  /**
   * How the manager runs the app's controllers and loops.
   *
   * @param enabled whether the starter makes a manager at all (default true); false for an app
   *     that only needs the client
   * @param leaderElection the lease name several replicas of the app elect a leader on; its
   *     SINGLETON controllers run only in the leader, with fenced writes. Empty (the default): no
   *     election, they always run, right for a single replica only
   * @param shardGroup the shard group whose members split the keys of SHARDED controllers; empty
   *     (the default) for none
   * @param leaseDuration how long the election's lease (or a shard member's heartbeat) goes
   *     unrenewed before another process takes over (default 15 s)
   * @param renewDeadline how long a leader keeps leading without a successful renew (default 10 s)
   * @param retryPeriod how often leases are renewed and looked at (default 2 s)
   * @param drainTimeout how long stopping waits for reconciles in flight (default 20 s, under
   *     Spring's 30 s {@code spring.lifecycle.timeout-per-shutdown-phase})
   * @param startupTimeout how long starting waits for the controllers' caches to be primed, so
   *     that the app turns ready only then (default 30 s; zero does not wait); when it runs out,
   *     startup goes on and the health indicator says what is still priming
   */
  public record ManagerProperties(
      @DefaultValue("true") boolean enabled,
      String leaderElection,
      String shardGroup,
      @DefaultValue("15s") Duration leaseDuration,
      @DefaultValue("10s") Duration renewDeadline,
      @DefaultValue("2s") Duration retryPeriod,
      @DefaultValue("20s") Duration drainTimeout,
      @DefaultValue("30s") Duration startupTimeout) {
    /** Checks the durations; the election's names and how its timings nest are checked as the manager is built. */
    public ManagerProperties {
      leaderElection = leaderElection == null ? "" : leaderElection.strip();
      shardGroup = shardGroup == null ? "" : shardGroup.strip();
      positive("setpoint.manager.lease-duration", leaseDuration);
      positive("setpoint.manager.renew-deadline", renewDeadline);
      positive("setpoint.manager.retry-period", retryPeriod);
      positive("setpoint.manager.drain-timeout", drainTimeout);
      notNegative("setpoint.manager.startup-timeout", startupTimeout);
    }
  }

  /**
   * How the health indicator checks the agent.
   *
   * @param timeout how long it waits for the agent to answer (default 2 s)
   */
  public record HealthProperties(@DefaultValue("2s") Duration timeout) {
    /** Checks the timeout. */
    public HealthProperties {
      positive("setpoint.health.timeout", timeout);
    }
  }

  private static void positive(String property, Duration value) {
    if (value == null || value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException(property + " must be a positive duration, was " + value);
    }
  }

  private static void notNegative(String property, Duration value) {
    if (value == null || value.isNegative()) {
      throw new IllegalArgumentException(property + " must not be a negative duration, was " + value);
    }
  }

  private static void readable(String property, Path file) {
    if (file != null && !Files.isReadable(file)) {
      throw new IllegalArgumentException(property + " names no readable file: " + file.toAbsolutePath());
    }
  }
}
