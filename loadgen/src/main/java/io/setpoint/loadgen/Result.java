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
 * @param serverCpu CPU time the servers used during the window, all members together; a component
 *     nobody measured is {@link CpuTime#UNKNOWN_NANOS}
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
    CpuTime serverCpu) {

  /** Server CPU time per successful write in the window, in microseconds; NaN when unknown. */
  public double serverCpuMicrosPerWrite() {
    return microsPerWrite(serverCpu.totalNanos());
  }

  /** Server system CPU time per successful write in the window, in microseconds; NaN when unknown. */
  public double serverSystemCpuMicrosPerWrite() {
    return microsPerWrite(serverCpu.systemNanos());
  }

  private double microsPerWrite(long nanos) {
    return nanos < 0 || writes == 0 ? Double.NaN : nanos / 1e3 / writes;
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
        millis(p50), millis(p90), millis(p99), millis(p999), millis(max), errors, conflicts, cpuText(),
        firstError.isEmpty() ? "" : ", first: " + firstError);
  }

  /** {@code , server CPU 250 us/write (system 100)}, as far as it is known. */
  private String cpuText() {
    double total = serverCpuMicrosPerWrite();
    double system = serverSystemCpuMicrosPerWrite();
    if (Double.isNaN(total)) {
      return "";
    }
    return String.format(Locale.ROOT, ", server CPU %.0f us/write", total)
        + (Double.isNaN(system) ? "" : String.format(Locale.ROOT, " (system %.0f)", system));
  }

  /** {@code 1.234 ms} */
  public static String millis(long nanos) {
    return String.format(Locale.ROOT, "%.3f ms", nanos / 1e6);
  }
}
