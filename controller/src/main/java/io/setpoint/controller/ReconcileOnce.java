package io.setpoint.controller;

import io.setpoint.controller.queue.Trigger;
import java.time.Duration;
import java.util.List;

/** The context of a reconcile called directly, outside any queue. */
final class ReconcileOnce {
  private ReconcileOnce() {}

  static ReconcileContext context(String controller) {
    List<Trigger> triggers = List.of(Trigger.manual("reconcileOnce"));
    return new ReconcileContext() {
      @Override public String controller() { return controller; }
      @Override public List<Trigger> triggers() { return triggers; }
      @Override public int retries() { return 0; }
      @Override public Duration queueWait() { return Duration.ZERO; }
      @Override public boolean isCancelled() { return Thread.currentThread().isInterrupted(); }
    };
  }
}
