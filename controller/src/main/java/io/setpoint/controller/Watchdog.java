package io.setpoint.controller;

import io.setpoint.controller.time.Ticker;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

/** Interrupts a reconcile that outlives its timeout, and never one that already ended. */
final class Watchdog {
  private static final Watchdog NONE = new Watchdog();
  private final AtomicBoolean settled = new AtomicBoolean();
  private Thread timer;

  private Watchdog() {}

  /**
   * Cancels {@code ctx} and interrupts {@code worker} after {@code timeout} of {@code ticker}'s
   * time; zero arms nothing.
   */
  static Watchdog arm(Duration timeout, WorkContext<?> ctx, Thread worker, Ticker ticker) {
    if (timeout.isZero()) {
      return NONE;
    }
    Watchdog watchdog = new Watchdog();
    long deadline = ticker.read() + timeout.toNanos();
    watchdog.timer = Thread.ofVirtual().start(() -> {
      try {
        ticker.sleepUntil(deadline);
      } catch (InterruptedException e) {
        return;
      }
      if (watchdog.settled.compareAndSet(false, true)) {
        ctx.cancel();
        worker.interrupt();
      }
    });
    return watchdog;
  }

  /** Called by the worker when the reconcile ended; waits out a timeout that already fired. */
  void disarm() {
    if (timer == null) {
      return;
    }
    if (settled.compareAndSet(false, true)) {
      timer.interrupt();
    } else {
      try {
        timer.join();
      } catch (InterruptedException e) {
        // the timer's own interrupt of this worker; cleared by the caller
      }
    }
  }
}
