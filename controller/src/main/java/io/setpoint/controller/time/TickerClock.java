package io.setpoint.controller.time;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * {@link ManualTicker#clock()}: a wall clock that reads its start plus however far the ticker has
 * been advanced since, so the dates a test sees (lease expiry, the age of a record) move with the
 * timers it drives. Always in UTC.
 */
final class TickerClock extends Clock {
  private final Ticker ticker;
  private final Instant start;
  /** The ticker's reading at {@code start}. */
  private final long origin;

  TickerClock(Ticker ticker, Instant start) {
    this.ticker = ticker;
    this.start = start;
    this.origin = ticker.read();
  }

  @Override
  public Instant instant() {
    // By difference, as ticker readings must be compared: a ticker may start near Long.MAX_VALUE.
    return start.plus(Duration.ofNanos(ticker.read() - origin));
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  /** This clock, when {@code zone} is UTC. */
  @Override
  public Clock withZone(ZoneId zone) {
    if (!ZoneOffset.UTC.equals(zone)) {
      throw new UnsupportedOperationException("a manual ticker's clock is in UTC, not " + zone);
    }
    return this;
  }

  @Override
  public String toString() {
    return "ManualTicker.clock()[" + instant() + "]";
  }
}
