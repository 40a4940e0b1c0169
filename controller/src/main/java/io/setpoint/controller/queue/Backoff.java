package io.setpoint.controller.queue;

import java.time.Duration;
import java.util.Objects;

/**
 * Per-key exponential backoff: the n-th consecutive failure waits {@code base * multiplier^(n-1)},
 * capped at {@code max} (client-go's ItemExponentialFailureRateLimiter: 5 ms, 10 ms, ... 1000 s).
 */
record Backoff(long baseNanos, long maxNanos, double multiplier) {

  /**
   * {@code base} multiplied by {@code multiplier} per failure, up to {@code max}.
   *
   * @throws IllegalArgumentException unless {@code 0 < base <= max} and {@code multiplier} is finite
   *     and at least 1
   */
  static Backoff of(Duration base, Duration max, double multiplier) {
    requirePositive(base, "backoff base");
    requirePositive(max, "backoff max");
    if (max.compareTo(base) < 0 || !(multiplier >= 1) || Double.isInfinite(multiplier)) {
      throw new IllegalArgumentException(
          "need base <= max and a finite multiplier >= 1: " + base + ", " + max + ", " + multiplier);
    }
    return new Backoff(base.toNanos(), max.toNanos(), multiplier);
  }

  private static void requirePositive(Duration d, String what) {
    Objects.requireNonNull(d, what);
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(what + " must be positive: " + d);
    }
  }

  /** The delay after {@code failures} (at least 1) consecutive failures. */
  long delayNanos(int failures) {
    // Double arithmetic saturates instead of overflowing; powers of two stay exact.
    double d = baseNanos * Math.pow(multiplier, failures - 1);
    return d >= maxNanos ? maxNanos : (long) d;
  }
}
