package io.setpoint.controller.queue;

/**
 * How urgently a queued key should be processed. Ready keys of a higher priority are handed out
 * first; once a {@link #LOW} key has waited longer than the queue's aging period, aged keys take
 * turns with {@link #HIGH} ones, so low-priority work is delayed but never starved, and a flood of
 * it delays a live key by at most one.
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
