package io.setpoint.controller;

import java.time.Duration;
import java.util.Objects;

/**
 * The three timings of a lease kept by a {@link LeaseKeeper}, checked to nest: a retry period, then
 * a renew deadline, then a lease duration.
 *
 * @param leaseDuration how long the lease goes unrenewed before others may take it
 * @param renewDeadline how long the holder keeps it without a successful renew
 * @param retryPeriod how often the holder renews, and a candidate looks
 */
record LeaseTimings(Duration leaseDuration, Duration renewDeadline, Duration retryPeriod) {
  /** @throws IllegalArgumentException when the timings do not nest */
  LeaseTimings {
    if (renewDeadline.compareTo(leaseDuration) >= 0) {
      throw new IllegalArgumentException(
          "renewDeadline " + renewDeadline + " must be shorter than leaseDuration " + leaseDuration);
    }
    if (retryPeriod.compareTo(renewDeadline) >= 0) {
      throw new IllegalArgumentException(
          "retryPeriod " + retryPeriod + " must be shorter than renewDeadline " + renewDeadline);
    }
  }

  /** {@code d}, checked to be positive, for the builder setter of {@code what}. */
  static Duration positive(String what, Duration d) {
    if (Objects.requireNonNull(d, what).isNegative() || d.isZero()) {
      throw new IllegalArgumentException(what + " must be positive, got " + d);
    }
    return d;
  }
}
