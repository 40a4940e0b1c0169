package io.setpoint.controller.time;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A {@link Ticker} whose time stands still until {@link #advance} moves it, for tests that check
 * timing (backoff, delayed adds, resync, aging) deterministically and without sleeping.
 *
 * <p>Thread-safe: any thread may read or advance it. Every advance calls the listeners registered
 * with {@link #onAdvance} after the new time is visible, so a thread blocked in {@code
 * WorkQueue.take()} re-checks what has become due.
 */
public final class ManualTicker implements Ticker {
  private final AtomicLong nanos;
  // Copy-on-write: registrations are rare, advances iterate without locking and without seeing a
  // half-updated list.
  private final CopyOnWriteArrayList<Runnable> listeners = new CopyOnWriteArrayList<>();
  private final Clock clock;

  /** A ticker that reads 0 until advanced. */
  public ManualTicker() {
    this(0);
  }

  /**
   * A ticker that reads {@code startNanos} until advanced. Starting near {@link Long#MAX_VALUE} is
   * a cheap way to check that code compares readings by their difference, as it must with {@link
   * System#nanoTime()}, which may overflow.
   */
  public ManualTicker(long startNanos) {
    this.nanos = new AtomicLong(startNanos);
    this.clock = new TickerClock(this, Instant.now());
  }

  @Override
  public long read() {
    return nanos.get();
  }

  /**
   * Moves time forward by {@code duration} (zero is allowed and still wakes listeners) and then
   * calls every listener. Returns this ticker for chaining.
   *
   * @throws IllegalArgumentException if {@code duration} is negative: monotonic time never goes back
   */
  public ManualTicker advance(Duration duration) {
    Objects.requireNonNull(duration, "duration");
    if (duration.isNegative()) {
      throw new IllegalArgumentException("a monotonic clock cannot go back: " + duration);
    }
    nanos.addAndGet(duration.toNanos());
    for (Runnable listener : listeners) {
      listener.run();
    }
    return this;
  }

  /**
   * The wall clock of this ticker's time, for what reads the date rather than a timer (lease
   * expiry, the age of a record, {@code tools.clock()}): it reads the system time at which the
   * ticker was made, and moves only as the ticker is advanced, by as much. Give it where a clock is
   * wanted ({@code Manager.Builder.clock}, an agent's) so that one {@link #advance} moves both.
   * Always in UTC.
   */
  public Clock clock() {
    return clock;
  }

  /** Always true: time moves only through {@link #advance}. */
  @Override
  public boolean isManual() {
    return true;
  }

  @Override
  public Registration onAdvance(Runnable listener) {
    Objects.requireNonNull(listener, "listener");
    listeners.add(listener);
    return () -> listeners.remove(listener);
  }

  @Override
  public String toString() {
    return "ManualTicker[" + nanos.get() + " ns]";
  }
}
