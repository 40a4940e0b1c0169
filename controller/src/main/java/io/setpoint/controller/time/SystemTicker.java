package io.setpoint.controller.time;

/** {@link System#nanoTime()} as a {@link Ticker}; an enum so it is a serialization-proof singleton. */
enum SystemTicker implements Ticker {
  INSTANCE;

  @Override
  public long read() {
    return System.nanoTime();
  }

  @Override
  public String toString() {
    return "Ticker.system()";
  }
}
