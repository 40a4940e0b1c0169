package io.setpoint.controller.time;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A wall {@link Clock} that stands still until {@link #advance} moves it, for tests of what
 * depends on the date (lease expiry, the age of a record), where {@link ManualTicker} serves the
 * timers. Thread-safe; always in UTC.
 */
public final class ManualClock extends Clock {
  private final AtomicReference<Instant> now;

  /** A clock that reads {@code start} until advanced. */
  public ManualClock(Instant start) {
    this.now = new AtomicReference<>(Objects.requireNonNull(start, "start"));
  }

  /**
   * Moves the clock forward by {@code duration}. Returns this clock for chaining.
   *
   * @throws IllegalArgumentException if {@code duration} is negative
   */
  public ManualClock advance(Duration duration) {
    Objects.requireNonNull(duration, "duration");
    if (duration.isNegative()) {
      throw new IllegalArgumentException("a manual clock only moves forward: " + duration);
    }
    now.updateAndGet(t -> t.plus(duration));
    return this;
  }

  @Override
  public Instant instant() {
    return now.get();
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  /** This clock, when {@code zone} is UTC. */
  @Override
  public Clock withZone(ZoneId zone) {
    if (!ZoneOffset.UTC.equals(zone)) {
      throw new UnsupportedOperationException("a manual clock is in UTC, not " + zone);
    }
    return this;
  }

  @Override
  public String toString() {
    return "ManualClock[" + now.get() + "]";
  }
}
