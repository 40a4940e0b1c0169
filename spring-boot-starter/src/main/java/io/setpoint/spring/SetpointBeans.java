package io.setpoint.spring;

import io.micrometer.core.instrument.MeterRegistry;
import io.opentelemetry.api.OpenTelemetry;
import io.setpoint.client.SetpointClient;
import io.setpoint.controller.LeaseElection;
import io.setpoint.controller.Manager;
import io.setpoint.controller.Sharding;
import java.util.List;
import java.util.function.Supplier;

/**
 * Builds the client and the manager from the properties. A builder's refusal is rethrown naming
 * the property behind it, so that a bad value fails startup saying which one.
 */
final class SetpointBeans {
  private SetpointBeans() {}

  static SetpointClient client(SetpointProperties properties, OpenTelemetry openTelemetry,
      List<SetpointCustomizer> customizers) {
    SetpointClient.Builder builder = SetpointClient.builder()
        .address(properties.addressList())
        .token(properties.token())
        .deadline(properties.deadline());
    SetpointProperties.Tls tls = properties.tls();
    builder.tls(tls.ca()).clientCertificate(tls.clientCertificate(), tls.clientKey());
    if (openTelemetry != null) {
      builder.openTelemetry(openTelemetry);
    }
    customizers.forEach(c -> c.client(builder));
    return naming("setpoint.address or setpoint.tls", builder::build);
  }

  static Manager manager(SetpointClient client, SetpointProperties.ManagerProperties properties,
      MeterRegistry meters, OpenTelemetry openTelemetry, List<SetpointCustomizer> customizers) {
    Manager.Builder builder = Manager.builder().client(client).drainTimeout(properties.drainTimeout());
    if (meters != null) {
      builder.meterRegistry(meters);
    }
    if (openTelemetry != null) {
      builder.openTelemetry(openTelemetry);
    }
    if (!properties.leaderElection().isEmpty()) {
      LeaseElection.Builder election = naming("setpoint.manager.leader-election",
          () -> LeaseElection.named(properties.leaderElection()));
      election.leaseDuration(properties.leaseDuration()).renewDeadline(properties.renewDeadline())
          .retryPeriod(properties.retryPeriod());
      naming("setpoint.manager.lease-duration, renew-deadline and retry-period", () -> builder.leaderElection(election));
    }
    if (!properties.shardGroup().isEmpty()) {
      Sharding.Builder group = naming("setpoint.manager.shard-group", () -> Sharding.named(properties.shardGroup()));
      group.leaseDuration(properties.leaseDuration()).renewDeadline(properties.renewDeadline())
          .retryPeriod(properties.retryPeriod());
      naming("setpoint.manager.lease-duration, renew-deadline and retry-period", () -> builder.sharding(group));
    }
    customizers.forEach(c -> c.manager(builder));
    return builder.build();
  }

  /** Runs {@code step}; an {@link IllegalArgumentException} it throws is rethrown naming {@code property}. */
  private static <T> T naming(String property, Supplier<T> step) {
    try {
      return step.get();
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(property + ": " + e.getMessage(), e);
    }
  }
}
