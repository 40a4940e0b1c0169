package io.setpoint.controller.time;

import java.time.Duration;
import java.util.concurrent.Semaphore;

/**
 * A monotonic clock that reads nanoseconds, like {@link System#nanoTime()}: only differences
 * between two readings mean anything, and they never go backwards.
 *
 * <p>The runtime reads time only through a ticker so that tests can replace it with a {@link
 * ManualTicker} and check backoff, delays and resyncs without waiting. Code that blocks until a
 * point in ticker time (such as {@code WorkQueue.take()}) registers with {@link #onAdvance} so that
 * it wakes up when a manual ticker jumps.
 */
public interface Ticker {

  /** The current time in nanoseconds, from an arbitrary origin (may be negative). */
  long read();

  /** The ticker backed by {@link System#nanoTime()}. */
  static Ticker system() {
    return SystemTicker.INSTANCE;
  }

  /**
   * True when time moves only by explicit jumps (which call the {@link #onAdvance} listeners), so
   * a waiter should not sleep for a span of real time but wait for the next jump; false when time
   * flows on its own, as with {@link #system()}.
   */
  default boolean isManual() {
    return false;
  }

  /**
   * Calls {@code listener} after each jump of this ticker's time, on the thread that made the jump,
   * until the returned registration is closed. Listeners must be quick and must not throw. The
   * system ticker never jumps; it ignores the listener and returns {@link Registration#NONE}.
   */
  default Registration onAdvance(Runnable listener) {
    return Registration.NONE;
  }

  /**
   * Blocks until {@code duration} of this ticker's time has passed: real time for the system
   * ticker; the next jumps that reach it for a manual one, so a thread that waits between retries
   * (a leader election, a supervisor's backoff) is driven by the test's ticker.
   *
   * @throws InterruptedException when interrupted while waiting
   */
  default void sleep(Duration duration) throws InterruptedException {
    sleepUntil(read() + duration.toNanos());
  }

  /**
   * Blocks until this ticker reads {@code deadline} or later (compared by difference, as {@link
   * #read()} readings must be). A deadline taken before handing the wait to another thread is not
   * missed by a jump that comes before that thread starts waiting.
   *
   * @throws InterruptedException when interrupted while waiting
   */
  default void sleepUntil(long deadline) throws InterruptedException {
    if (!isManual()) {
      long left;
      while ((left = deadline - read()) > 0) {
        Thread.sleep(Duration.ofNanos(left));
      }
      return;
    }
    Semaphore jumped = new Semaphore(0);
    try (Registration ignored = onAdvance(jumped::release)) {
      while (deadline - read() > 0) {
        jumped.acquire();
      }
    }
  }

  /** Ends a listener registration made with {@link #onAdvance}; closing twice is harmless. */
  @FunctionalInterface
  interface Registration extends AutoCloseable {
    /** A registration with nothing to end. */
    Registration NONE = () -> {};

    @Override
    void close();
  }
}
