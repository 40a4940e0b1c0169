package io.setpoint.bench;

import io.setpoint.loadgen.CpuTime;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;

/**
 * CPU time (user and system) used by the agent (-1 when it is not this benchmark's), by this JVM
 * (B's reader), by the flood's process and by the whole machine (-1 where /proc/stat is not),
 * each in nanoseconds. The machine's time less the three is what other programs took while the
 * phase ran: a run they disturbed says so.
 */
record PhaseCpu(long agentNanos, long benchNanos, long floodNanos, long machineNanos) {
  private static final Path PROC_STAT = Path.of("/proc/stat");
  /** /proc/stat counts in USER_HZ, 100 a second on Linux everywhere but a few old ports. */
  private static final long NANOS_PER_TICK = 10_000_000L;

  static PhaseCpu now(Long agentPid, long floodPid) {
    return new PhaseCpu(agentPid == null ? -1 : cpuNanos(agentPid), cpuNanos(ProcessHandle.current().pid()),
        cpuNanos(floodPid), machineBusyNanos());
  }

  private static long cpuNanos(long pid) {
    return CpuTime.of(pid).totalNanos();
  }

  /** All CPUs' time running something (user, nice, system, irq, softirq), from the first line of /proc/stat. */
  private static long machineBusyNanos() {
    try (var lines = Files.lines(PROC_STAT)) {
      String[] f = lines.findFirst().orElse("").trim().split("\\s+");
      if (f.length < 8 || !f[0].equals("cpu")) {
        return -1;
      }
      // cpu user nice system idle iowait irq softirq [steal guest guest_nice]: guest time is
      // already in user and nice, and stolen time is the hypervisor's, not this machine's.
      long busy = 0;
      for (int i : new int[] {1, 2, 3, 6, 7}) {
        busy += Long.parseLong(f[i]);
      }
      return busy * NANOS_PER_TICK;
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  PhaseCpu since(PhaseCpu start) {
    return new PhaseCpu(minus(agentNanos, start.agentNanos), minus(benchNanos, start.benchNanos),
        minus(floodNanos, start.floodNanos), minus(machineNanos, start.machineNanos));
  }

  private static long minus(long end, long start) {
    return end < 0 || start < 0 ? -1 : end - start;
  }

  /** "agent 0.42 cores, this JVM 0.05 cores, flood 0.98 cores, other processes 0.02 cores" over {@code over}. */
  String describe(Duration over) {
    long others = machineNanos < 0 || benchNanos < 0 || floodNanos < 0 ? -1
        : Math.max(0, machineNanos - Math.max(0, agentNanos) - benchNanos - floodNanos);
    return cores("agent", agentNanos, over) + ", " + cores("this JVM", benchNanos, over) + ", "
        + cores("flood", floodNanos, over) + ", " + cores(agentNanos < 0 ? "the rest, the agent's included" : "other processes",
            others, over);
  }

  private static String cores(String who, long nanos, Duration over) {
    return nanos < 0 ? who + " ?" : String.format(Locale.ROOT, "%s %.2f cores", who, (double) nanos / over.toNanos());
  }
}
