package io.setpoint.client;

import java.util.List;
import java.util.Map;

/**
 * The gRPC service config of every client: calls that only read are tried again when they fail
 * with {@code UNAVAILABLE} (the agent stopped, or has no Raft leader for a moment), after a short
 * backoff and on whichever agent the channel reaches next. Writes are left to gRPC's transparent
 * retry, which only repeats a call that never reached an agent.
 */
final class ReadRetries {
  private static final List<Map<String, String>> READS = List.of(
      method("setpoint.resource.v1.ResourceService", "Read"),
      method("setpoint.resource.v1.ResourceService", "List"),
      method("setpoint.resource.v1.ResourceService", "ListByOwner"),
      method("setpoint.resource.v1.TypeService", "ListTypes"),
      method("setpoint.operator.v1.OperatorService", "ListPeers"),
      method("setpoint.controller.v1.ControllerService", "ListControllers"),
      method("setpoint.controller.v1.ControllerService", "ListReconciles"));

  /** gRPC's JSON form, as maps; numbers are doubles, as its parser expects. */
  static final Map<String, ?> SERVICE_CONFIG = Map.of("methodConfig", List.of(Map.of(
      "name", READS,
      "retryPolicy", Map.of(
          "maxAttempts", 4.0,
          "initialBackoff", "0.1s",
          "maxBackoff", "1s",
          "backoffMultiplier", 2.0,
          "retryableStatusCodes", List.of("UNAVAILABLE")))));

  private ReadRetries() {}

  private static Map<String, String> method(String service, String name) {
    return Map.of("service", service, "method", name);
  }
}
