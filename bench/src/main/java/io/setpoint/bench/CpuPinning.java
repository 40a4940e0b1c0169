package io.setpoint.bench;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * How {@code bench flood} spreads its processes over the CPUs it may use, with {@code taskset}
 * (Linux): the flood gets the last CPU to itself, as a flood from another host has CPUs of its own,
 * and the agent and the benchmark's own JVM share the others. {@link #none} when pinning is off,
 * when {@code taskset} is not on the PATH, or when there is a single CPU to share.
 */
final class CpuPinning {
  private static final Path STATUS = Path.of("/proc/self/status");
  private static final String ALLOWED = "Cpus_allowed_list:";

  private final String taskset;
  private final String all;
  private final String shared;
  private final String flood;
  private final String whyNot;

  private CpuPinning(String taskset, String all, String shared, String flood, String whyNot) {
    this.taskset = taskset;
    this.all = all;
    this.shared = shared;
    this.flood = flood;
    this.whyNot = whyNot;
  }

  /** No pinning, because of {@code why} ("-no-pin-cpus", "no taskset on the PATH", ...). */
  static CpuPinning none(String why) {
    return new CpuPinning(null, null, null, null, why);
  }

  /** The split of the CPUs this process may use, or {@link #none} saying why there is none. */
  static CpuPinning plan() {
    Optional<String> taskset = onPath("taskset");
    if (taskset.isEmpty()) {
      return none("no taskset on the PATH");
    }
    Optional<String> allowed = allowedCpus();
    if (allowed.isEmpty()) {
      return none("no " + ALLOWED + " in " + STATUS);
    }
    List<Integer> cpus = expand(allowed.get());
    if (cpus.size() < 2) {
      return none("a single CPU (" + allowed.get() + ") to share");
    }
    String shared = cpus.subList(0, cpus.size() - 1).stream().map(String::valueOf).collect(Collectors.joining(","));
    return new CpuPinning(taskset.get(), allowed.get(), shared, String.valueOf(cpus.getLast()), null);
  }

  boolean pinned() {
    return taskset != null;
  }

  /** Why there is no pinning; null when there is. */
  String whyNot() {
    return whyNot;
  }

  /** The flood's CPU. */
  String floodCpus() {
    return flood;
  }

  /** The CPUs the agent and the benchmark's JVM share. */
  String sharedCpus() {
    return shared;
  }

  /** What a command of the flood's starts with: {@code taskset -c CPU}, or nothing when not pinned. */
  List<String> floodPrefix() {
    return pinned() ? List.of(taskset, "-c", flood) : List.of();
  }

  /** Pins every thread of the running process {@code pid} (and so the threads they start) to the shared CPUs. */
  void pinShared(long pid) {
    apply(shared, pid);
  }

  /**
   * Pins this JVM to the shared CPUs until {@link AutoCloseable#close()}, which gives it back all
   * the CPUs it had, so that a benchmark run inside a longer-lived JVM (a test's) leaves it as it was.
   */
  AutoCloseable pinThisJvm() {
    long self = ProcessHandle.current().pid();
    apply(shared, self);
    return () -> apply(all, self);
  }

  private void apply(String cpus, long pid) {
    try {
      Process process = new ProcessBuilder(taskset, "-a", "-p", "-c", cpus, Long.toString(pid))
          .redirectErrorStream(true).start();
      String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!process.waitFor(10, TimeUnit.SECONDS) || process.exitValue() != 0) {
        process.destroyForcibly();
        throw new IllegalStateException("taskset -a -p -c " + cpus + " " + pid + " failed: " + output.strip());
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run " + taskset, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while pinning " + pid, e);
    }
  }

  private static Optional<String> onPath(String program) {
    String path = System.getenv("PATH");
    if (path == null) {
      return Optional.empty();
    }
    for (String dir : path.split(File.pathSeparator)) {
      Path candidate = Path.of(dir.isEmpty() ? "." : dir, program);
      if (Files.isExecutable(candidate)) {
        return Optional.of(candidate.toString());
      }
    }
    return Optional.empty();
  }

  /** "0-1" or "0,2-3": the CPUs the kernel lets this process run on. */
  private static Optional<String> allowedCpus() {
    try {
      return Files.readAllLines(STATUS).stream().filter(l -> l.startsWith(ALLOWED))
          .map(l -> l.substring(ALLOWED.length()).strip()).findFirst();
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /** "0,2-3" as [0, 2, 3]. */
  static List<Integer> expand(String list) {
    List<Integer> cpus = new ArrayList<>();
    for (String part : list.split(",")) {
      String[] range = part.strip().split("-");
      int from = Integer.parseInt(range[0]);
      int to = range.length > 1 ? Integer.parseInt(range[1]) : from;
      for (int cpu = from; cpu <= to; cpu++) {
        cpus.add(cpu);
      }
    }
    return cpus;
  }
}
