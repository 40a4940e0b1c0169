package io.setpoint.cli.bench;

import java.util.Arrays;
import java.util.Locale;

/** Latencies in nanoseconds, collected and then summarised by percentiles. */
final class Samples {
  private long[] nanos;
  private int size;

  Samples(int expected) {
    this.nanos = new long[Math.max(16, expected)];
  }

  void add(long value) {
    if (size == nanos.length) {
      nanos = Arrays.copyOf(nanos, size * 2);
    }
    nanos[size++] = value;
  }

  int size() {
    return size;
  }

  /** The nearest-rank percentile ({@code p} in 0..100] in nanoseconds. */
  long percentile(double p) {
    if (size == 0) {
      throw new IllegalStateException("no samples");
    }
    long[] sorted = Arrays.copyOf(nanos, size);
    Arrays.sort(sorted);
    int rank = (int) Math.ceil(p / 100 * size);
    return sorted[Math.min(size, Math.max(1, rank)) - 1];
  }

  /** "p50 123.4 us, p90 ..., p99 ..., p99.9 ..., max ..." */
  String summary() {
    return String.format(Locale.ROOT, "p50 %s, p90 %s, p99 %s, p99.9 %s, max %s (%d samples)",
        micros(percentile(50)), micros(percentile(90)), micros(percentile(99)),
        micros(percentile(99.9)), micros(percentile(100)), size);
  }

  static String micros(long nanos) {
    return String.format(Locale.ROOT, "%.1f us", nanos / 1000.0);
  }
}
