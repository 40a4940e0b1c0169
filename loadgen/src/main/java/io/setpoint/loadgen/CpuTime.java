package io.setpoint.loadgen;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * CPU time that processes have used so far, in nanoseconds: in all, and the part the kernel spent on
 * their behalf (system time); the rest is user time. A component is {@link #UNKNOWN_NANOS} when the
 * operating system does not tell it: system time is known only on Linux.
 *
 * @param totalNanos user and system time together
 * @param systemNanos system time
 */
public record CpuTime(long totalNanos, long systemNanos) {
  /** A component nobody could measure. */
  public static final long UNKNOWN_NANOS = -1;
  /** Nothing measured. */
  public static final CpuTime UNKNOWN = new CpuTime(UNKNOWN_NANOS, UNKNOWN_NANOS);
  /** Nothing used yet. */
  public static final CpuTime ZERO = new CpuTime(0, 0);

  /** The sum of both; a component is unknown when it is unknown in either. */
  public CpuTime plus(CpuTime other) {
    return new CpuTime(add(totalNanos, other.totalNanos), add(systemNanos, other.systemNanos));
  }

  /** What was used from {@code earlier} to this; a component is unknown when it is unknown in either. */
  public CpuTime since(CpuTime earlier) {
    return new CpuTime(subtract(totalNanos, earlier.totalNanos), subtract(systemNanos, earlier.systemNanos));
  }

  /**
   * What process {@code pid} has used so far; {@link #UNKNOWN} once it has exited. The total comes
   * from the JDK; Linux's {@code /proc/PID/stat} splits it, in clock ticks, into user and system time.
   */
  public static CpuTime of(long pid) {
    Optional<Duration> total = ProcessHandle.of(pid).flatMap(handle -> handle.info().totalCpuDuration());
    return total.map(t -> new CpuTime(t.toNanos(), systemPart(pid, t.toNanos()))).orElse(UNKNOWN);
  }

  /** The system part of {@code totalNanos}, from {@code /proc/PID/stat}; unknown where there is none. */
  private static long systemPart(long pid, long totalNanos) {
    try {
      String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
      // The command name, in parentheses, may hold spaces; fields 14 and 15 (utime, stime) follow it.
      String[] fields = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
      long userTicks = Long.parseLong(fields[11]);
      long systemTicks = Long.parseLong(fields[12]);
      long ticks = userTicks + systemTicks;
      // The JDK's total is the same two counters times the clock tick, which Java cannot ask for.
      return ticks == 0 ? 0 : Math.round((double) totalNanos * systemTicks / ticks);
    } catch (IOException | RuntimeException e) {
      return UNKNOWN_NANOS;
    }
  }

  private static long add(long a, long b) {
    return a < 0 || b < 0 ? UNKNOWN_NANOS : a + b;
  }

  private static long subtract(long later, long earlier) {
    return later < 0 || earlier < 0 ? UNKNOWN_NANOS : later - earlier;
  }
}
