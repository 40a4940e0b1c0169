package io.setpoint.controller;

import java.time.Duration;
import java.util.Objects;

/** What a reconcile asks for next: nothing, or another reconcile after a delay. */
public sealed interface Result {
  /** Done until something changes (or the next resync). Resets the request's backoff. */
  static Result done() {
    return Done.INSTANCE;
  }

  /** Reconcile again after {@code delay}, whatever happens meanwhile. Resets the backoff. */
  static Result requeueAfter(Duration delay) {
    return new RequeueAfter(delay);
  }

  /** Reconcile again as soon as possible (after the other queued requests). */
  static Result requeueNow() {
    return new RequeueAfter(Duration.ZERO);
  }

  /** Nothing more to do. */
  enum Done implements Result {
    INSTANCE
  }

  /** Reconcile again after {@code delay}. */
  record RequeueAfter(Duration delay) implements Result {
    public RequeueAfter {
      Objects.requireNonNull(delay, "delay");
      if (delay.isNegative()) {
        throw new IllegalArgumentException("delay must not be negative, was " + delay);
      }
    }
  }
}
