package io.setpoint.controller.queue;

/**
 * How urgently a queued key should be processed. Ready keys of a higher priority are handed out
 * first; a {@link #LOW} key that has waited longer than the queue's aging period is served as if it
 * were {@link #HIGH}, so low-priority work is delayed but never starved.
 */
public enum Priority {
  /** Live changes and retries: someone is waiting for the outcome. */
  HIGH,
  /** Bulk work nobody is waiting for: the startup sweep and periodic resyncs. */
  LOW;

  /** The more urgent of the two. */
  static Priority max(Priority a, Priority b) {
    return a.ordinal() <= b.ordinal() ? a : b;
  }
}
