package io.setpoint.controller;

import io.setpoint.controller.queue.Trigger;
import java.time.Duration;
import java.util.List;

/**
 * One reconcile's circumstances: why it runs, how long it waited, and its deadline. When the
 * controller's reconcile timeout passes, the reconcile's thread is interrupted and {@link
 * #isCancelled()} turns true; long-running work should check it.
 */
public interface ReconcileContext {
  /** The controller's name. */
  String controller();

  /** What queued this request: events, a timer, a retry, a resync or startup (coalesced). */
  List<Trigger> triggers();

  /** How many times this request failed in a row before this attempt. */
  int retries();

  /** How long the request waited in the queue. */
  Duration queueWait();

  /** True once the reconcile ran past its timeout or the controller is stopping. */
  boolean isCancelled();
}
