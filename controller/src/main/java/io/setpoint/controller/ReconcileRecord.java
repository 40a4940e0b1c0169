package io.setpoint.controller;

import io.setpoint.controller.queue.Trigger;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * One reconcile a controller (or loop) ran: the key, what queued it, how long it waited and ran,
 * and how it ended. Kept by the manager in a bounded history per controller ({@link
 * Manager#reconciles}).
 *
 * @param controller the controller's name
 * @param key the request's resource id ({@code group.version.Kind/tenancy/name}), or a loop's key
 *     as text
 * @param triggers why it ran, oldest first: the events, timers, retries or manual triggers merged
 *     into this run
 * @param started when it started, by the manager's clock
 * @param queueWait how long the key waited in the queue, ready, before it started
 * @param duration how long the reconcile ran
 * @param result {@code success}, {@code requeue}, {@code requeue_after} or {@code error}, as the
 *     {@code controller_runtime_reconcile_total} metric counts it
 * @param message the error, or why it asked to run again; empty after a plain success
 */
public record ReconcileRecord(
    String controller,
    String key,
    List<Trigger> triggers,
    Instant started,
    Duration queueWait,
    Duration duration,
    String result,
    String message) {

  public ReconcileRecord {
    Objects.requireNonNull(controller, "controller");
    Objects.requireNonNull(key, "key");
    triggers = List.copyOf(triggers);
    Objects.requireNonNull(started, "started");
    Objects.requireNonNull(queueWait, "queueWait");
    Objects.requireNonNull(duration, "duration");
    Objects.requireNonNull(result, "result");
    message = message == null ? "" : message;
  }
}
