package io.setpoint.loadgen;

import java.util.Arrays;
import java.util.List;

/**
 * Latencies in nanoseconds: appended by one thread, then sorted (alone or merged with other
 * threads' latencies) and read by nearest-rank percentile. No histogram buckets, so percentiles
 * are exact.
 */
public final class Latencies {
  private long[] nanos;
  private int size;

  /** Room for {@code expected} latencies to start with; it grows as needed. */
  public Latencies(int expected) {
    this.nanos = new long[Math.max(16, expected)];
  }

  public void add(long value) {
    if (size == nanos.length) {
      nanos = Arrays.copyOf(nanos, size * 2);
    }
    nanos[size++] = value;
  }

  public int size() {
    return size;
  }

  /** These latencies, sorted. */
  public long[] sorted() {
    return sortedUnion(List.of(this));
  }

  /** All of {@code parts}, sorted. */
  public static long[] sortedUnion(Iterable<Latencies> parts) {
    int total = 0;
    for (Latencies part : parts) {
      total += part.size;
    }
    long[] all = new long[total];
    int at = 0;
    for (Latencies part : parts) {
      System.arraycopy(part.nanos, 0, all, at, part.size);
      at += part.size;
    }
    Arrays.sort(all);
    return all;
  }

  /**
   * The nearest-rank percentile ({@code p} in (0, 100]) of {@code sorted}; 0 when it is empty.
   */
  public static long percentile(long[] sorted, double p) {
    if (p <= 0 || p > 100) {
      throw new IllegalArgumentException("percentile must be in (0, 100], was " + p);
    }
    if (sorted.length == 0) {
      return 0;
    }
    int rank = (int) Math.ceil(p / 100 * sorted.length);
    return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
  }
}
