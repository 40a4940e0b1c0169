package io.setpoint.controller;

import io.setpoint.controller.Controller.Placement;
import org.slf4j.LoggerFactory;

/**
 * Runs each controller where its {@link Placement} says: EACH_SERVER always, SINGLETON while this
 * manager leads, SHARDED while it is a member of its shard group. A standby of a leader election
 * keeps the caches of its SINGLETON controllers primed, so that taking over starts at once.
 */
final class Placer {
  private final Leadership leadership;
  /** Whether the leadership is this manager's own election, whose standbys keep caches primed. */
  private final boolean elected;
  /** Null when the manager is in no shard group. */
  private final Sharding sharding;
  private final SharedCache cache;

  Placer(Leadership leadership, boolean elected, Sharding sharding, SharedCache cache) {
    this.leadership = leadership;
    this.elected = elected;
    this.sharding = sharding;
    this.cache = cache;
  }

  /** Whether {@code controller} should run in this manager now. */
  boolean runsHere(ControllerSpec controller) {
    return switch (controller.placement()) {
      case EACH_SERVER -> true;
      case SINGLETON -> leadership.isLeader();
      case SHARDED -> sharding.isMember();
    };
  }

  /** Why {@code controller} does not run here now, as a parenthesis; empty when its placement allows it. */
  String whyNotHere(ControllerSpec controller) {
    if (runsHere(controller)) {
      return "";
    }
    return switch (controller.placement()) {
      case SINGLETON -> " (it is SINGLETON and runs where the leader is)";
      case SHARDED -> " (it is SHARDED and this manager is not in the shard group now)";
      case EACH_SERVER -> "";
    };
  }

  /** Starts or stops {@code supervisor}, which runs {@code controller}, as its placement says now. */
  void place(ControllerSpec controller, Supervisor supervisor) {
    if (runsHere(controller)) {
      supervisor.ensureRunning();
    } else {
      supervisor.ensureStopped();
      if (elected && controller.placement() == Placement.SINGLETON) {
        warm(controller);
      }
    }
  }

  /** Primes the cache a standby's controller will need. */
  private void warm(ControllerSpec controller) {
    try {
      controller.addIndexesAndQueries(cache);
      controller.cachedTypes().forEach(cache::watch);
    } catch (RuntimeException e) {
      // Starting the controller reports the same problem, when it starts.
      LoggerFactory.getLogger(Manager.class).warn("could not prime the cache of {}: {}", controller.name(), e.getMessage());
    }
  }
}
