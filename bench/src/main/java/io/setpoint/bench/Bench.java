package io.setpoint.bench;

import com.github.f4b6a3.ulid.UlidCreator;
import com.google.protobuf.Any;
import io.setpoint.api.Tenancies;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Tenancy;
import io.setpoint.demo.DemoTypes;
import io.setpoint.demo.v2.Artist;
import io.setpoint.demo.v2.Genre;
import io.setpoint.loadgen.AotCache;
import io.setpoint.storage.Backend;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/** What the benchmarks share: argument checks and a description of the machine. */
final class Bench {
  private Bench() {}

  static void requirePositive(CommandSpec spec, String option, int value) {
    if (value <= 0) {
      throw new ParameterException(spec.commandLine(), option + " must be positive, was " + value);
    }
  }

  static void requireNotNegative(CommandSpec spec, String option, int value) {
    if (value < 0) {
      throw new ParameterException(spec.commandLine(), option + " must not be negative, was " + value);
    }
  }

  /**
   * The command line that runs this CLI with {@code args} in a new JVM, as the {@code setpoint}
   * launcher would: the same java, JVM options and class path as this process, the CLI's AOT cache
   * where this process has the agent's, C1 alone but for the snapshot commands, and the serial
   * collector unless one was chosen.
   */
  static List<String> cliCommand(List<String> args) {
    String java = ProcessHandle.current().info().command().orElseThrow(() -> new IllegalStateException(
        "cannot tell which java runs this process"));
    List<String> command = new ArrayList<>(List.of(java));
    List<String> inherited = ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
        .filter(arg -> !AotCache.isFlag(arg))
        .toList();
    command.addAll(inherited);
    if (!args.getFirst().equals("snapshot")) {
      command.add("-XX:TieredStopAtLevel=1");
    }
    if (inherited.stream().noneMatch(arg -> arg.startsWith("-XX:+Use") && arg.endsWith("GC"))) {
      command.add("-XX:+UseSerialGC");
    }
    command.addAll(AotCache.CLI.flags());
    command.addAll(List.of("-cp", System.getProperty("java.class.path"), "io.setpoint.cli.Main"));
    command.addAll(args);
    return command;
  }

  /** What a command printed (stdout and stderr together), and how long it took from launch to exit. */
  record Ran(Duration took, String output) {}

  /**
   * Runs {@code command} to its end, timed from launch to exit. It must exit with 0 within {@code
   * timeout}; otherwise the exception names it as {@code name} and quotes the end of what it printed.
   * Its output goes to a temporary file, so a talkative command never waits on a full pipe.
   */
  static Ran run(String name, List<String> command, Duration timeout) throws IOException, InterruptedException {
    Path output = Files.createTempFile("setpoint-bench-run-", ".out");
    try {
      long start = System.nanoTime();
      Process process = new ProcessBuilder(command)
          .redirectErrorStream(true)
          .redirectOutput(output.toFile())
          .start();
      if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        process.destroyForcibly();
        throw new IllegalStateException(name + " did not end within " + timeout);
      }
      Duration took = Duration.ofNanos(System.nanoTime() - start);
      String printed = Files.readString(output);
      if (process.exitValue() != 0) {
        throw new IllegalStateException(name + " exited with " + process.exitValue() + ": "
            + printed.substring(Math.max(0, printed.length() - 2000)).strip());
      }
      return new Ran(took, printed);
    } finally {
      Files.deleteIfExists(output);
    }
  }

  /** What the output says when this JVM was given no AOT cache. */
  static final String NO_AOT_CACHE =
      "none (./setpoint on JDK 25+ gives the build's caches while they are newer than its jar; SETPOINT_NO_AOT turns them off)";

  /**
   * "AOT cache for the agents: PATH", or "none" and how to get one: a first window measured without
   * the cache is not comparable with one measured with it.
   */
  static String agentAotCache() {
    return "AOT cache for the agents: " + AotCache.AGENT.path().map(Path::toString).orElse(NO_AOT_CACHE);
  }

  /** "machine: 2 cores, Java 25.0.1 (Eclipse Adoptium), max heap 6144 MiB" */
  static String machine() {
    return String.format("machine: %d cores, Java %s (%s), max heap %d MiB",
        Runtime.getRuntime().availableProcessors(),
        System.getProperty("java.version"),
        System.getProperty("java.vm.vendor"),
        Runtime.getRuntime().maxMemory() >> 20);
  }

  /**
   * Stores {@code count} valid Artists named {@code artist-000000}, ... directly in {@code backend},
   * as they would be after a restart: the state a controller finds when it starts cold.
   */
  static void populate(Backend backend, int count) {
    Tenancy tenancy = Tenancies.of("default", "default");
    String generation = UlidCreator.getMonotonicUlid().toString();
    for (int n = 0; n < count; n++) {
      String name = String.format("artist-%06d", n);
      Artist data = Artist.newBuilder()
          .setName("Artist " + n)
          .setGenre(Genre.GENRE_DISCO)
          .setDescription("A band made up for benchmarks, with a description of realistic length.")
          .addDiscography("Greatest Hits")
          .build();
      backend.writeCas(Resource.newBuilder()
          .setId(ID.newBuilder().setType(DemoTypes.ARTIST).setTenancy(tenancy).setName(name)
              .setUid(UlidCreator.getMonotonicUlid().toString()))
          .setGeneration(generation)
          .setData(Any.pack(data))
          .build());
    }
  }

  /**
   * Live heap bytes: collected until three collections in a row free less than 256 KiB more.
   * Garbage that other threads release late (an earlier agent's buffers, say) made single
   * readings drift by tens of MiB, and one quiet collection by a few, more than a small store
   * weighs.
   */
  static long liveHeap() throws InterruptedException {
    long previous = Long.MAX_VALUE;
    int quiet = 0;
    for (int i = 0; i < 40; i++) {
      System.gc();
      long used = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
      quiet = previous - used < (256 << 10) ? quiet + 1 : 0;
      if (quiet >= 3) {
        return used;
      }
      previous = used;
      Thread.sleep(50); // lets reference handlers and closing threads drop what they still hold
    }
    return previous;
  }

  /** The 1, 5 and 15-minute load averages from /proc/loadavg, or "unknown". */
  static String loadAverage() {
    try {
      String[] fields = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
      return fields[0] + " " + fields[1] + " " + fields[2];
    } catch (IOException | RuntimeException e) {
      return "unknown";
    }
  }

  /** {@code 1.5 s}: a duration as the reports print it. */
  static String seconds(Duration d) {
    return String.format(Locale.ROOT, "%.1f s", d.toMillis() / 1000.0);
  }
}
