package io.setpoint.controller;

/**
 * A token bucket over a controller's or loop's retries, on top of each key's own exponential
 * backoff (what controller-runtime's default rate limiter does): {@code perSecond} retries a
 * second across all keys, with up to {@code burst} saved up. A retry waits for the longer of its
 * backoff and its token, so a failure that hits every key at once does not retry them all at once.
 *
 * @param perSecond tokens added per second; {@code Double.POSITIVE_INFINITY} for no limit
 * @param burst the most tokens saved up, at least 1
 */
public record RateLimit(double perSecond, int burst) {
  /** No limit: each key retries after its own backoff only (the default). */
  public static final RateLimit UNLIMITED = new RateLimit(Double.POSITIVE_INFINITY, 1);

  /** Checks the parts. */
  public RateLimit {
    if (!(perSecond > 0) || burst < 1) {
      throw new IllegalArgumentException("a rate limit needs perSecond > 0 and burst >= 1, was " + perSecond + ", " + burst);
    }
  }

  /** {@code perSecond} retries a second, up to {@code burst} at once. */
  public static RateLimit of(double perSecond, int burst) {
    if (Double.isInfinite(perSecond)) {
      throw new IllegalArgumentException("perSecond must be finite (RateLimit.UNLIMITED for no limit)");
    }
    return new RateLimit(perSecond, burst);
  }

  /** Whether it limits anything. */
  public boolean isLimited() {
    return !Double.isInfinite(perSecond);
  }
}
