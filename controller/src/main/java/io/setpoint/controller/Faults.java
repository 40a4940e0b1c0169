package io.setpoint.controller;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.setpoint.api.Types;
import io.setpoint.api.v1.Type;
import io.setpoint.client.SetpointException;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What failed in the runtime outside a reconcile: a user's filter, mapper, source or initializer,
 * an informer, a supervisor's start, a heartbeat or an election. Each fault is logged with where it
 * happened and what it was about, counted in {@code setpoint_controller_faults_total{controller,where}},
 * and kept as the controller's last fault for {@code setpoint controller list}, the UI and the
 * manager's state: a thread that caught an error and went on is never silent.
 */
final class Faults {
  private static final Logger log = LoggerFactory.getLogger(Faults.class);

  /** A controller's (or loop's, election's, shard group's) tally. */
  private record Tally(long count, String last) {}

  private final MeterRegistry registry;
  private final Clock clock;
  private final Map<String, Tally> tallies = new ConcurrentHashMap<>();
  private final Map<String, Counter> counters = new ConcurrentHashMap<>();

  Faults(MeterRegistry registry, Clock clock) {
    this.registry = registry;
    this.clock = clock;
  }

  /**
   * Records that {@code where} (filter, mapper, source, watch, start...) of {@code name} failed,
   * {@code about} saying on what (a resource, a type, an event) or what happens next, and logs it, with its stack trace unless
   * {@code quiet}: a retry of the same delivery need not print the same trace again.
   */
  void record(String name, String where, String about, Throwable cause, boolean quiet) {
    tally(name, where, about, cause);
    if (quiet) {
      log.warn("controller {}: {} failed again ({}): {}", name, where, about, cause.toString());
    } else {
      log.error("controller {}: {} failed ({})", name, where, about, cause);
    }
  }

  /** Counts and keeps a fault, as {@link #record} does, without logging it: the caller did. */
  void tally(String name, String where, String about, Throwable cause) {
    counters.computeIfAbsent(name + "\0" + where, k -> Counter.builder("setpoint.controller.faults")
        .description("Failures in the controller runtime outside reconciles, by where they happened")
        .tag("controller", name).tag("where", where).register(registry)).increment();
    String text = where + " failed (" + about + "): " + cause + " at " + Instant.now(clock);
    tallies.merge(name, new Tally(1, text), (old, added) -> new Tally(old.count() + 1, text));
  }

  /**
   * The shared cache's watch of {@code type} failed and lists afresh, or one of its listeners threw:
   * a fault of each of {@code controllers} that caches the type, since its view stood still
   * meanwhile. Counted only: the cache logged it.
   */
  void cacheFailed(List<ControllerSpec> controllers, Type type, String where, Throwable cause) {
    for (ControllerSpec c : controllers) {
      if (c.cachedTypes().contains(type)) {
        tally(c.name(), where, Types.format(type), cause);
      }
    }
  }

  /**
   * Records {@code cause}, caught by a thread that goes on after its retry period, unless it is
   * routine: the server's answer, or its silence (a call past its deadline, cancelled), which the
   * thread logs and retries. Anything else, errors included, is a fault.
   */
  void caught(String name, String where, String about, Throwable cause) {
    if (cause instanceof SetpointException || cause instanceof CancellationException
        || cause instanceof IllegalStateException) {
      log.warn("{} {}: {}", where, name, cause.getMessage());
    } else {
      record(name, where, about, cause, false);
    }
  }

  /** How many faults {@code name} had since the manager started. */
  long count(String name) {
    Tally tally = tallies.get(name);
    return tally == null ? 0 : tally.count();
  }

  /** The last fault of {@code name}: where, on what, the error and when. */
  Optional<String> last(String name) {
    return Optional.ofNullable(tallies.get(name)).map(Tally::last);
  }
}
