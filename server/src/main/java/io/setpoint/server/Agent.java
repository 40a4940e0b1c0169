package io.setpoint.server;

import io.opentelemetry.api.OpenTelemetry;
import io.setpoint.api.tls.TlsFiles;
import io.setpoint.client.SetpointClient;
import io.setpoint.controller.Manager;
import io.setpoint.controller.Sharding;
import io.setpoint.controller.time.Ticker;
import io.setpoint.resource.Registry;
import io.setpoint.server.plugin.SetpointPlugin;
import io.setpoint.storage.Backend;
import io.setpoint.storage.engine.StoreEngine.Limits;
import io.setpoint.storage.raft.RaftConfig;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.function.Consumer;

/**
 * A running Setpoint server: on one port the resource service (gRPC, with server reflection), its
 * HTTP/JSON gateway under {@code /api}, {@code /metrics} (Prometheus), {@code /healthz} and {@code
 * /readyz}; over a storage backend, with the types its builder registered and a {@link Manager}
 * running its controllers in-process.
 *
 * <pre>{@code
 * try (Agent agent = Agent.builder().port(0).types(DemoTypes::register).start()) {
 *   int port = agent.port();
 *   ...
 * }
 * }</pre>
 *
 * <p>{@link Builder} holds the options; {@code AgentStartup} wires and starts the parts, and
 * {@code AgentShutdown} stops them.
 */
public final class Agent implements AutoCloseable {
  private final ApiServer server;
  private final Registry registry;
  private final Manager manager;
  private final SetpointClient local;
  private final AgentShutdown shutdown;
  private final CountDownLatch stopped = new CountDownLatch(1);

  Agent(ApiServer server, Registry registry, Manager manager, SetpointClient local, AgentShutdown shutdown) {
    this.server = server;
    this.registry = registry;
    this.manager = manager;
    this.local = local;
    this.shutdown = shutdown;
  }

  /** Starts configuring an agent. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * A client for code running in this process (an application embedding the agent, a benchmark):
   * it reaches the services over the in-process transport, without sockets, and acts with the
   * agent's own identity, like the agent's controllers. Closed with the agent.
   */
  public SetpointClient client() {
    return local;
  }

  /** The port the agent listens on (useful after asking for port 0). */
  public int port() {
    return server.port();
  }

  /** The types this agent serves. */
  public Registry registry() {
    return registry;
  }

  /** The manager running this agent's controllers (over an in-process channel). */
  public Manager manager() {
    return manager;
  }

  /** Blocks until {@link #close()} has finished. */
  public void awaitTermination() throws InterruptedException {
    stopped.await();
  }

  /**
   * Stops gracefully, then closes the store. Idempotent. A member that leads hands leadership to
   * another first; the server then closes its port and tells each client connection to go away
   * once its requests are answered (its clients move to another agent), open watches end so their
   * clients watch elsewhere, and the requests in progress finish (for up to five seconds) before
   * the store closes.
   */
  @Override
  public void close() {
    if (stopped.getCount() == 0) {
      return;
    }
    synchronized (this) {
      if (stopped.getCount() == 0) {
        return;
      }
      shutdown.run();
      stopped.countDown();
    }
  }

  /** Configures and starts an {@link Agent}. */
  public static final class Builder {
    private static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofSeconds(15);

    // The options, read by AgentStartup.
    String host = "127.0.0.1";
    int port = 8500;
    Consumer<Registry> types = registry -> {};
    Consumer<Manager> controllers = manager -> {};
    Backend backend;
    Clock clock = Clock.systemUTC();
    OpenTelemetry openTelemetry;
    Ticker ticker = Ticker.system();
    ServiceLimits limits = ServiceLimits.DEFAULT;
    int maxRequestBytes = 4 << 20;
    boolean acls = true;
    TlsFiles tls;
    boolean clientCertificatesOptional;
    int maxConnections;
    int maxConnectionsPerClient;
    Duration idleTimeout = DEFAULT_IDLE_TIMEOUT;
    boolean metricsAcl;
    /** Watches one client may hold open; 0: no limit. */
    int maxWatchesPerClient;
    /** Requests per second per client; 0: no limit. */
    double clientRate;
    int clientBurst;
    Path pluginDir;
    boolean replaceTypeSet;
    String shardGroup;
    RaftConfig raft;
    Joiner joiner;
    Limits storeLimits = Limits.DEFAULT;
    Duration meterSampleInterval = Duration.ofSeconds(5);

    private Builder() {}

    /** The address to listen on (default 127.0.0.1). */
    public Builder host(String host) {
      this.host = Objects.requireNonNull(host, "host");
      return this;
    }

    /** The port to listen on (default 8500; 0 picks a free one). */
    public Builder port(int port) {
      if (port < 0 || port > 65535) {
        throw new IllegalArgumentException("port must be within 0..65535, was " + port);
      }
      this.port = port;
      return this;
    }

    /** Registers the types the agent serves. */
    public Builder types(Consumer<Registry> types) {
      this.types = Objects.requireNonNull(types, "types");
      return this;
    }

    /** Registers the controllers the agent runs (besides its own, such as the cascade). */
    public Builder controllers(Consumer<Manager> controllers) {
      this.controllers = Objects.requireNonNull(controllers, "controllers");
      return this;
    }

    /**
     * A durable store, replicated with Raft, that the agent opens at {@link #start()} and closes:
     * one member of its own ({@code RaftConfig.of(node, dataDir, raftPort, Map.of())}) or of the
     * cluster the config's peers name. See docs/storage.md. {@link #start()} throws an {@link
     * java.io.UncheckedIOException} or {@link IllegalStateException} saying why a data directory
     * cannot be used.
     */
    public Builder raft(RaftConfig config) {
      this.raft = Objects.requireNonNull(config, "config");
      this.backend = null;
      return this;
    }

    /**
     * A durable store whose member {@linkplain RaftConfig#joining() joins} a running cluster, and
     * how it asks to be added. When the member is not in the cluster yet (its data directory is
     * new), {@link #start()} starts it, calls {@code joiner} and waits until it has heard it was
     * added, before serving; afterwards it restarts like any member.
     */
    public Builder raft(RaftConfig config, Joiner joiner) {
      raft(config);
      this.joiner = Objects.requireNonNull(joiner, "joiner");
      return this;
    }

    /** The bounds of the in-memory store the agent creates when given neither a backend nor {@link #raft}. */
    public Builder storeLimits(Limits limits) {
      this.storeLimits = Objects.requireNonNull(limits, "limits");
      return this;
    }

    /** The storage backend (default: a new in-memory one). The agent closes it. */
    public Builder backend(Backend backend) {
      this.backend = Objects.requireNonNull(backend, "backend");
      this.raft = null;
      return this;
    }

    /** The clock that stamps statuses (default: the system clock). */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /**
     * Traces with {@code openTelemetry}: a span per gRPC call (continuing the caller's trace), and
     * for the agent's controllers a span per reconcile in the trace of the write whose watch event
     * caused it, with the reconciler's own calls inside. Default: an SDK configured by the standard
     * {@code OTEL_*} variables when they ask for traces ({@code OTEL_TRACES_EXPORTER}, {@code
     * OTEL_EXPORTER_OTLP_ENDPOINT}), otherwise no tracing.
     */
    public Builder openTelemetry(OpenTelemetry openTelemetry) {
      this.openTelemetry = Objects.requireNonNull(openTelemetry, "openTelemetry");
      return this;
    }

    /** The ticker of the controllers' delays, backoff and resync (a ManualTicker in tests). */
    public Builder ticker(Ticker ticker) {
      this.ticker = Objects.requireNonNull(ticker, "ticker");
      return this;
    }

    /** Resource size and page limits. */
    public Builder limits(ServiceLimits limits) {
      this.limits = Objects.requireNonNull(limits, "limits");
      return this;
    }

    /** The largest request the server reads (default 4 MiB); larger ones get RESOURCE_EXHAUSTED. */
    public Builder maxRequestBytes(int maxRequestBytes) {
      if (maxRequestBytes < 1024) {
        throw new IllegalArgumentException("maxRequestBytes must be at least 1024, was " + maxRequestBytes);
      }
      this.maxRequestBytes = maxRequestBytes;
      return this;
    }

    /**
     * Whether requests need a token and are checked against its policies (default true: ACLs
     * on). Off in {@code agent -dev} and in tests that want open access. See docs/security.md.
     */
    public Builder acls(boolean acls) {
      this.acls = acls;
      return this;
    }

    /**
     * Serve HTTPS only, with the certificate and key in {@code files}: gRPC, the HTTP/JSON gateway
     * and {@code /metrics} alike. When {@code files} has a {@linkplain TlsFiles#trustedCa() trusted
     * CA}, every client must present a certificate signed by it (mutual TLS). Null (the default):
     * plaintext. The agent's own controllers use an in-process transport either way. The files are
     * read by {@link #start()}, which throws an {@link IllegalArgumentException} naming a file it
     * cannot use.
     */
    public Builder tls(TlsFiles files) {
      this.tls = files;
      return this;
    }

    /**
     * With a {@linkplain TlsFiles#trustedCa() trusted CA} in {@link #tls}: {@code true} accepts
     * clients without a certificate too (they then need a token secret, as over plain TLS), while a
     * client that presents one must still present one the CA signed; {@code false} (the default)
     * requires one. Either way a certificate that a token lists acts as that token
     * (docs/security.md, "Certificate identities").
     */
    public Builder clientCertificatesOptional(boolean optional) {
      this.clientCertificatesOptional = optional;
      return this;
    }

    /**
     * The most client connections open at once (default: what the process's file-descriptor limit
     * leaves after a fifth, at least 256, for the store and the JVM). Connections past it are
     * closed on arrival with a reset; open ones are untouched. See docs/security.md.
     */
    public Builder maxConnections(int maxConnections) {
      if (maxConnections < 1) {
        throw new IllegalArgumentException("maxConnections must be at least 1, was " + maxConnections);
      }
      this.maxConnections = maxConnections;
      return this;
    }

    /**
     * The most connections open at once from one client address (default 512, or {@link
     * #maxConnections} when lower); the excess is closed on arrival like past {@link #maxConnections}.
     */
    public Builder maxConnectionsPerClient(int maxConnectionsPerClient) {
      if (maxConnectionsPerClient < 1) {
        throw new IllegalArgumentException(
            "maxConnectionsPerClient must be at least 1, was " + maxConnectionsPerClient);
      }
      this.maxConnectionsPerClient = maxConnectionsPerClient;
      return this;
    }

    /**
     * How long a connection with no request in progress stays open (default 15 s). A connection
     * carrying an open watch (a gRPC stream, server-sent events) is never idle.
     */
    public Builder idleTimeout(Duration idleTimeout) {
      if (idleTimeout.isNegative() || idleTimeout.isZero()) {
        throw new IllegalArgumentException("idleTimeout must be positive, was " + idleTimeout);
      }
      this.idleTimeout = idleTimeout;
      return this;
    }

    /**
     * Caps the watches one client (its token, or its address without one) holds open at once; one
     * past it is refused with {@code RESOURCE_EXHAUSTED} (HTTP 429). Default: no cap.
     */
    public Builder maxWatchesPerClient(int watches) {
      if (watches < 1) {
        throw new IllegalArgumentException("maxWatchesPerClient must be at least 1, was " + watches);
      }
      this.maxWatchesPerClient = watches;
      return this;
    }

    /**
     * Makes {@code /metrics} need a token with {@code operator:read} ({@code Authorization: Bearer})
     * when ACLs are on; by default it needs none, like the health probes.
     */
    public Builder metricsAcl(boolean required) {
      this.metricsAcl = required;
      return this;
    }

    /**
     * Limits the API requests of each client (its token, or its address without one) to {@code
     * perSecond} on average and {@code burst} at once; a request over it is refused with {@code
     * RESOURCE_EXHAUSTED} (HTTP 429) and a {@code Retry-After}. Default: no limit.
     */
    public Builder clientRateLimit(double perSecond, int burst) {
      if (!(perSecond > 0) || burst < 1) {
        throw new IllegalArgumentException(
            "clientRateLimit needs a rate above 0 and a burst of at least 1, was " + perSecond + " and " + burst);
      }
      this.clientRate = perSecond;
      this.clientBurst = burst;
      return this;
    }

    /**
     * Loads the {@link SetpointPlugin}s of every jar in {@code dir} (see docs/plugins.md): their
     * types are registered with the agent's, their controllers run with its own. {@link #start()}
     * throws an {@link IllegalStateException} naming a jar or plugin it cannot use.
     */
    public Builder plugins(Path dir) {
      this.pluginDir = Objects.requireNonNull(dir, "dir");
      return this;
    }

    /**
     * Record this agent's compiled and plugin types as the cluster's even when it lacks some that
     * the cluster recorded (default false: such an agent refuses to start). For an operator who
     * removed a type or plugin on purpose; see docs/plugins.md.
     */
    public Builder replaceTypeSet(boolean replaceTypeSet) {
      this.replaceTypeSet = replaceTypeSet;
      return this;
    }

    /**
     * Makes the agent's manager a member of the shard group {@code name}, so that its SHARDED
     * controllers (its own and its plugins') split their keys with the other members of the group,
     * each caching and reconciling only its share (see docs/controllers.md, "Several processes at
     * once: sharding"). The member is named after the Raft node, or the host and process without
     * one. Without a group, registering a SHARDED controller fails.
     *
     * @throws IllegalArgumentException when {@code name} is not 1 to 30 of [-a-z0-9]
     */
    public Builder shardGroup(String name) {
      Sharding.named(name); // checks the name now, not at start
      this.shardGroup = name;
      return this;
    }

    /**
     * How often the UI's charts sample the agent's meters (default 5 s); the last 180 samples are
     * kept, 15 minutes at the default. Measured on the {@link #ticker}.
     */
    public Builder meterSampleInterval(Duration interval) {
      if (interval.isNegative() || interval.isZero()) {
        throw new IllegalArgumentException("meterSampleInterval must be positive, was " + interval);
      }
      this.meterSampleInterval = interval;
      return this;
    }

    /** Starts serving; returns once the port is bound. */
    public Agent start() {
      Closer opened = new Closer();
      if (backend != null) {
        opened.add(backend::close); // handed over: the agent closes it, also when it fails to start
      }
      try {
        return new AgentStartup(this).start(opened);
      } catch (RuntimeException | Error e) {
        opened.closeAll(e);
        throw e;
      }
    }
  }

  /**
   * How an agent whose Raft member joins a running cluster asks to be added (see {@link
   * Agent.Builder#raft(io.setpoint.storage.raft.RaftConfig, Joiner)}): {@code setpoint agent -join
   * HOST:PORT} calls {@code OperatorService/AddPeer} on the member at that address.
   */
  @FunctionalInterface
  public interface Joiner {
    /**
     * Has the cluster add the member {@code node}, whose Raft address is {@code raftAddress}, and
     * returns once the cluster committed it. Called with this member listening and waiting; it has
     * no data, so a member of that name at that address is to be added again as new.
     *
     * @throws RuntimeException saying why the member could not be added; the agent does not start
     */
    void requestAdd(String node, String raftAddress);
  }
}
