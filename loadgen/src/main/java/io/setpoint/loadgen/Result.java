package io.setpoint.loadgen;

import java.util.Locale;

/**
 * What one measured run did: successful writes in the measured window (after the warm-up), their
 * latency percentiles in nanoseconds, and the failed writes in that window.
 *
 * @param system {@code setpoint} or {@code etcd}
 * @param nodes cluster members the clients were spread over
 * @param errors failed writes, conflicts included
 * @param conflicts CAS writes refused because the version had changed (part of {@code errors})
 * @param firstError the first failure seen in the window, empty if none
 * @param serverCpuNanos CPU time (user and system) the servers used during the window, all members
 *     together; {@link #CPU_UNKNOWN} when it was not measured
 * @param serverSystemCpuNanos the part of it the kernel spent on the servers' behalf (system time);
 *     {@link #CPU_UNKNOWN} when it was not measured
 */
public record Result(
    String system,
    int nodes,
    Op op,
    int clients,
    double seconds,
    long writes,
    long errors,
    long conflicts,
    String firstError,
    long p50,
    long p90,
    long p99,
    long p999,
    long max,
    long serverCpuNanos,
    long serverSystemCpuNanos) {

  /** {@link #serverCpuNanos} or {@link #serverSystemCpuNanos} when nobody measured it. */
  public static final long CPU_UNKNOWN = CpuTime.UNKNOWN_NANOS;

  /** Server CPU time per successful write in the window, in microseconds; NaN when unknown. */
  public double serverCpuMicrosPerWrite() {
    return serverCpuNanos < 0 || writes == 0 ? Double.NaN : serverCpuNanos / 1e3 / writes;
  }

  /** Server system CPU time per successful write in the window, in microseconds; NaN when unknown. */
  public double serverSystemCpuMicrosPerWrite() {
    return serverSystemCpuNanos < 0 || writes == 0 ? Double.NaN : serverSystemCpuNanos / 1e3 / writes;
  }

  /** Successful writes per second over the measured window. */
  public double writesPerSecond() {
    return seconds <= 0 ? 0 : writes / seconds;
  }

  /** {@code setpoint 1 node put: 5,123 writes/s, p50 2.91 ms, p99 8.12 ms, ... errors 0} */
  @Override
  public String toString() {
    return String.format(Locale.ROOT,
        "%s %d node%s %s, %d clients: %,.0f writes/s (%d in %.1f s), p50 %s, p90 %s, p99 %s, p99.9 %s, max %s, errors %d (conflicts %d)%s%s",
        system, nodes, nodes == 1 ? "" : "s", op.label(), clients, writesPerSecond(), writes, seconds,
        millis(p50), millis(p90), millis(p99), millis(p999), millis(max), errors, conflicts,
        Double.isNaN(serverCpuMicrosPerWrite()) ? "" : String.format(Locale.ROOT, ", server CPU %.0f us/write", serverCpuMicrosPerWrite())
            + (Double.isNaN(serverSystemCpuMicrosPerWrite()) ? "" : String.format(Locale.ROOT, " (system %.0f)", serverSystemCpuMicrosPerWrite())),
        firstError.isEmpty() ? "" : ", first: " + firstError);
  }

  /** {@code 1.234 ms} */
  public static String millis(long nanos) {
    return String.format(Locale.ROOT, "%.3f ms", nanos / 1e6);
  }
}
