package io.setpoint.bench;

import io.setpoint.cli.DurationConverter;
import io.setpoint.cli.ElectionOptions;
import io.setpoint.demo.DemoTypes;
import io.setpoint.server.Agent;
import io.setpoint.storage.memory.MemoryBackend;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * A SHARDED controller over N Artists, its reconciler spending {@code -io} per key, run by one
 * process and then by a shard group of {@code -processes}, each with the same concurrency: the
 * reconciles per second of one pass over every key, and the heap each process's cache takes. Then
 * it checks the split (every key reconciled by exactly one process), kills one member with SIGKILL
 * and times until the others have taken all its slots, and starts a new member and reports the
 * share it took and whether any key moved between the others.
 */
@Command(
    name = "shards",
    description = "Reconciles/s and cache heap of a controller sharded over N processes against one process;"
        + " the split, the takeover after kill -9 and a join.")
final class ShardsBench implements Callable<Integer> {
  private static final int SLOTS = 1024;

  @Spec private CommandSpec spec;

  @Option(names = "-artists", paramLabel = "N", defaultValue = "100000",
      description = "Artists, the controller's keys (default: ${DEFAULT-VALUE}).")
  private int artists;

  @Option(names = "-processes", paramLabel = "N", defaultValue = "3",
      description = "Members of the shard group (default: ${DEFAULT-VALUE}).")
  private int processes;

  @Option(names = "-concurrency", paramLabel = "N", defaultValue = "4",
      description = "Reconcile workers per process (default: ${DEFAULT-VALUE}).")
  private int concurrency;

  @Option(names = "-io", paramLabel = "TIME", defaultValue = "1ms", converter = DurationConverter.class,
      description = "Time each reconcile waits, standing for its I/O (default: ${DEFAULT-VALUE}).")
  private Duration io;

  @Mixin private ElectionOptions timing;

  @Option(names = "-logs", paramLabel = "DIR", hidden = true,
      description = "Keep each member's log in DIR (default: a temporary directory, deleted).")
  private Path logs;

  private final List<LineProcess> members = new ArrayList<>();
  private int started;

  /** One pass over the keys: its reconciles per second, and who reconciled what. */
  private record Pass(double perSecond, Map<String, String> owners, List<Long> cacheBytes) {}

  @Override
  public Integer call() throws Exception {
    Bench.requirePositive(spec, "-artists", artists);
    Bench.requirePositive(spec, "-concurrency", concurrency);
    if (processes < 2) {
      throw new ParameterException(spec.commandLine(), "-processes must be at least 2, was " + processes);
    }
    PrintWriter out = spec.commandLine().getOut();
    Duration wait = timing.leaseDuration().multipliedBy(4).plusSeconds(60)
        .plus(io.multipliedBy(artists).dividedBy(concurrency).multipliedBy(2));
    Path work = Files.createTempDirectory("setpoint-bench-shards");
    MemoryBackend store = new MemoryBackend();
    Bench.populate(store, artists);
    try (Agent agent = Agent.builder().port(0).acls(false).backend(store).types(DemoTypes::register).start()) {
      return run(out, "127.0.0.1:" + agent.port(), work, wait);
    } finally {
      for (LineProcess m : members) {
        m.process().destroyForcibly();
      }
      try (var files = Files.list(work)) {
        for (Path p : files.toList()) {
          Files.deleteIfExists(p);
        }
      }
      Files.deleteIfExists(work);
    }
  }

  private int run(PrintWriter out, String address, Path work, Duration wait) throws Exception {
    try {

      start(address, work);
      awaitSettled(wait);
      // Each configuration's first pass runs in JVMs still compiling; the second is the steady state.
      double oneFirst = timedPass(wait);
      Pass one = pass(work, wait);
      stopAll();

      for (int i = 0; i < processes; i++) {
        start(address, work);
      }
      awaitSettled(wait);
      double manyFirst = timedPass(wait);
      Pass many = pass(work, wait);
      boolean split = many.owners().size() == artists;

      LineProcess killed = members.remove(0);
      killed.process().destroyForcibly();
      long t0 = System.nanoTime();
      awaitSettled(wait);
      double takeover = (System.nanoTime() - t0) / 1e9;
      killed.process().waitFor(10, TimeUnit.SECONDS);
      Pass after = pass(work, wait);
      boolean pickedUp = after.owners().size() == artists;

      LineProcess joiner = start(address, work);
      awaitSettled(wait);
      Pass joined = pass(work, wait);
      long took = joined.owners().values().stream().filter(joiner.name()::equals).count();
      long movedBetweenOthers = joined.owners().entrySet().stream()
          .filter(e -> !e.getValue().equals(joiner.name()) && !e.getValue().equals(after.owners().get(e.getKey())))
          .count();

      long oneCache = one.cacheBytes().get(0);
      long maxCache = many.cacheBytes().stream().mapToLong(Long::longValue).max().orElseThrow();
      out.println(Bench.machine());
      out.printf(Locale.ROOT, "%d Artists; each reconcile waits %d ms (its I/O) and writes nothing; %d workers per process;"
          + " group timing: %s%n", artists, io.toMillis(), concurrency, timing.describe());
      out.printf(Locale.ROOT, "1 process:   %,.0f reconciles/s (first pass %,.0f); cache %.1f MiB%n",
          one.perSecond(), oneFirst, mib(oneCache));
      out.printf(Locale.ROOT, "%d processes: %,.0f reconciles/s (%.2fx; first pass %,.0f, %.2fx); cache per process %s MiB"
          + " (largest %.2fx)%n", processes, many.perSecond(), many.perSecond() / one.perSecond(), manyFirst,
          manyFirst / oneFirst,
          many.cacheBytes().stream().map(b -> String.format(Locale.ROOT, "%.1f", mib(b))).toList(),
          (double) maxCache / oneCache);
      out.printf(Locale.ROOT, "every key reconciled by exactly one process: %s%n", split ? "yes" : "NO");
      out.printf(Locale.ROOT, "kill -9 of a member: the others held all its slots after %.2f s (lease %d ms);"
          + " the next pass reached every key: %s%n", takeover, timing.leaseDuration().toMillis(), pickedUp ? "yes" : "NO");
      out.printf(Locale.ROOT, "a joining member took %.1f%% of the keys; keys moved between the others: %d%n",
          100.0 * took / artists, movedBetweenOthers);
      out.flush();
      return split && pickedUp && joined.owners().size() == artists ? 0 : 1;
    } catch (IllegalStateException e) {
      // Say why a member failed, from its log, while the agent still runs.
      for (LineProcess m : members) {
        Path log = work.resolve(m.name() + ".log");
        if (Files.exists(log)) {
          List<String> lines = Files.readAllLines(log);
          spec.commandLine().getErr().println("--- " + m.name() + ", last lines of its log:");
          lines.subList(Math.max(0, lines.size() - 40), lines.size()).forEach(spec.commandLine().getErr()::println);
        }
      }
      throw e;
    }
  }

  /** Every member reconciles all it owns once, at the same time; who did what, and how fast. */
  private Pass pass(Path work, Duration wait) throws IOException, InterruptedException {
    double perSecond = timedPass(wait);
    Map<String, String> owners = new HashMap<>();
    Set<String> twice = new HashSet<>();
    List<Long> cache = new ArrayList<>();
    for (LineProcess m : members) {
      Path file = work.resolve(m.name() + ".keys");
      m.ask("keys " + file, "keys", wait);
      for (String key : Files.readAllLines(file)) {
        if (owners.put(key, m.name()) != null) {
          twice.add(key);
        }
      }
      cache.add(Long.parseLong(m.ask("heap", "heap", wait)));
    }
    if (!twice.isEmpty()) {
      throw new IllegalStateException(twice.size() + " keys were reconciled by two processes, e.g. " + twice.iterator().next());
    }
    return new Pass(perSecond, owners, cache);
  }

  /** Every member reconciles all it owns once, at the same time: the keys over the slowest member's time. */
  private double timedPass(Duration wait) throws IOException, InterruptedException {
    for (LineProcess m : members) {
      m.stdin().write("pass\n");
      m.stdin().flush();
    }
    long keys = 0;
    long slowest = 0;
    for (LineProcess m : members) {
      String[] done = m.await("pass", wait).split(" ");
      keys += Long.parseLong(done[0]);
      slowest = Math.max(slowest, Long.parseLong(done[1]));
    }
    return keys / (slowest / 1e9);
  }

  /** Waits until every member sees all members, runs its controller, and they hold all slots between them. */
  private void awaitSettled(Duration wait) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + wait.toNanos();
    while (System.nanoTime() < deadline) {
      long slots = 0;
      boolean agreed = true;
      for (LineProcess m : members) {
        String[] stats = m.ask("stats", "stats", wait).split(" ");
        agreed &= Integer.parseInt(stats[0]) == members.size() && Boolean.parseBoolean(stats[3]);
        slots += Long.parseLong(stats[1]);
      }
      if (agreed && slots == SLOTS) {
        return;
      }
      Thread.sleep(20);
    }
    throw new IllegalStateException("the shard group did not settle within " + wait);
  }

  private LineProcess start(String address, Path work) throws IOException {
    String name = "member-" + (++started);
    List<String> args = new ArrayList<>(List.of("bench", "shard-member", "-address", address, "-member", name,
        "-concurrency", Integer.toString(concurrency), "-io", io.toMillis() + "ms"));
    args.addAll(timing.args());
    Path dir = logs != null ? Files.createDirectories(logs) : work;
    LineProcess member = LineProcess.start(name, new ProcessBuilder(Bench.cliCommand(args))
        .redirectError(ProcessBuilder.Redirect.appendTo(dir.resolve(name + ".log").toFile())));
    members.add(member);
    return member;
  }

  /** Closes every member's stdin, so each leaves the group cleanly, and waits for it to exit. */
  private void stopAll() throws IOException, InterruptedException {
    for (LineProcess m : members) {
      m.stdin().close();
    }
    for (LineProcess m : members) {
      if (!m.process().waitFor(60, TimeUnit.SECONDS)) {
        m.process().destroyForcibly();
      }
    }
    members.clear();
  }

  private static double mib(long bytes) {
    return bytes / (1024.0 * 1024.0);
  }
}
