package io.setpoint.spring;

import io.setpoint.client.SetpointClient;
import io.setpoint.controller.Manager;
import io.setpoint.controller.Manager.ControllerState;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * The {@code setpoint} health indicator: DOWN when the agent does not answer or a controller that
 * should run here was stopped by a failure; OUT_OF_SERVICE while controllers' caches are still
 * priming; UP otherwise. A standby (a replica that does not lead the election) is UP too: it keeps
 * its caches primed to take over, and the details say {@code standby}.
 */
final class SetpointHealthIndicator implements HealthIndicator {
  private final SetpointClient client;
  /** Null when the app runs no manager ({@code setpoint.manager.enabled=false}). */
  private final Manager manager;
  private final Duration timeout;

  SetpointHealthIndicator(SetpointClient client, Manager manager, Duration timeout) {
    this.client = client;
    this.manager = manager;
    this.timeout = timeout;
  }

  @Override
  public Health health() {
    Health.Builder health = Health.up().withDetail("agent", client.address());
    String unreachable = agentProblem();
    if (unreachable != null) {
      health.down().withDetail("error", unreachable);
    }
    if (manager == null) {
      return health.build();
    }
    boolean leader = manager.isLeader();
    health.withDetail("role", leader ? "leader" : "standby");
    List<String> stopped = manager.stopped();
    List<String> unprimed = manager.unprimed();
    if (!stopped.isEmpty()) {
      health.withDetail("stopped", stopped);
      if (unreachable == null) {
        health.down();
      }
    }
    if (!unprimed.isEmpty()) {
      health.withDetail("priming", unprimed);
      if (unreachable == null && stopped.isEmpty()) {
        health.outOfService();
      }
    }
    health.withDetail("controllers", controllers(manager.controllers()));
    Map<String, Boolean> loops = manager.loops();
    if (!loops.isEmpty()) {
      health.withDetail("loops", loops);
    }
    return health.build();
  }

  /** Why the agent does not answer a cheap call (listing its types) within the timeout; null when it does. */
  private String agentProblem() {
    CompletableFuture<?> call = client.async().types();
    try {
      call.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
      return null;
    } catch (TimeoutException e) {
      call.cancel(true);
      return "the agent did not answer within setpoint.health.timeout (" + timeout + ")";
    } catch (ExecutionException e) {
      return e.getCause() == null ? String.valueOf(e) : e.getCause().getMessage();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      call.cancel(true);
      return "interrupted while asking the agent";
    }
  }

  /** Each controller's name and, in a word or a sentence, how it is doing. */
  private static Map<String, String> controllers(List<ControllerState> states) {
    Map<String, String> out = new TreeMap<>();
    for (ControllerState state : states) {
      String how = state.running() ? "running, queue " + state.queueDepth()
          : state.failure().map(f -> "stopped: " + f).orElse("not running here");
      out.put(state.name(), how);
    }
    return out;
  }
}
