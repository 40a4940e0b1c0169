package io.setpoint.controller.queue;

/**
 * Per-key exponential backoff: the n-th consecutive failure waits {@code base * multiplier^(n-1)},
 * capped at {@code max} (client-go's ItemExponentialFailureRateLimiter: 5 ms, 10 ms, ... 1000 s).
 */
record Backoff(long baseNanos, long maxNanos, double multiplier) {

  /** The delay after {@code failures} (at least 1) consecutive failures. */
  long delayNanos(int failures) {
    // Double arithmetic saturates instead of overflowing; powers of two stay exact.
    double d = baseNanos * Math.pow(multiplier, failures - 1);
    return d >= maxNanos ? maxNanos : (long) d;
  }
}
