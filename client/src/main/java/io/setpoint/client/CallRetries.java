package io.setpoint.client;

import java.util.List;
import java.util.Map;

/**
 * The gRPC service config of every client: calls that only read, and writes, status writes and
 * deletes (which carry a request id, so the store applies each at most once), are tried again when they fail with
 * {@code UNAVAILABLE} (the agent stopped, or leadership moved and a write's outcome was not
 * learned), after a short backoff and on whichever agent the channel reaches next. Other writes
 * are left to gRPC's transparent retry, which only repeats a call that never reached an agent.
 */
final class CallRetries {
  private static final List<Map<String, String>> SAFE_TO_REPEAT = List.of(
      method("setpoint.resource.v1.ResourceService", "Write"),
      method("setpoint.resource.v1.ResourceService", "WriteStatus"),
      method("setpoint.resource.v1.ResourceService", "Delete"),
      method("setpoint.resource.v1.ResourceService", "Read"),
      method("setpoint.resource.v1.ResourceService", "List"),
      method("setpoint.resource.v1.ResourceService", "ListByOwner"),
      method("setpoint.resource.v1.TypeService", "ListTypes"),
      method("setpoint.operator.v1.OperatorService", "ListPeers"),
      method("setpoint.controller.v1.ControllerService", "ListControllers"),
      method("setpoint.controller.v1.ControllerService", "ListReconciles"));

  /** gRPC's JSON form, as maps; numbers are doubles, as its parser expects. */
  static final Map<String, ?> SERVICE_CONFIG = Map.of("methodConfig", List.of(Map.of(
      "name", SAFE_TO_REPEAT,
      "retryPolicy", Map.of(
          // Up to four retries over about three seconds at most: long enough for a Raft election.
          "maxAttempts", 5.0,
          "initialBackoff", "0.2s",
          "maxBackoff", "2s",
          "backoffMultiplier", 2.0,
          "retryableStatusCodes", List.of("UNAVAILABLE")))));

  private CallRetries() {}

  private static Map<String, String> method(String service, String name) {
    return Map.of("service", service, "method", name);
  }
}
