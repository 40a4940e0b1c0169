package io.setpoint.loadgen.chaos;

import io.setpoint.api.v1.ListRequest;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Tenancy;
import io.setpoint.client.SetpointClient;
import io.setpoint.client.SetpointException;
import io.setpoint.demo.DemoTypes;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * One run of the fault suite: starts the members, a watcher on each and the clients, runs the
 * phases one after another, stops the clients, lets the watchers catch up, lists every member, and
 * checks what was seen. Prints as it goes and ends with {@code N passed, M failed}.
 */
public final class ChaosRun {
  private static final Duration CATCH_UP = Duration.ofSeconds(10);
  private static final Duration LIST_DEADLINE = Duration.ofSeconds(5);
  private static final Duration SNAPSHOT_WAIT = Duration.ofSeconds(30);

  private final ChaosConfig config;
  private final PrintWriter out;
  private final Queue<Operation> ops = new ConcurrentLinkedQueue<>();
  private volatile boolean running = true;

  private ChaosRun(ChaosConfig config, PrintWriter out) {
    this.config = config;
    this.out = out;
  }

  /**
   * The checks of a run, in the order printed.
   *
   * @param checks every check's verdict
   */
  public record Report(List<Check> checks) {
    /** Copies the list. */
    public Report {
      checks = List.copyOf(checks);
    }

    /** How many checks held. */
    public long passed() {
      return checks.stream().filter(Check::passed).count();
    }

    /** How many did not. */
    public long failed() {
      return checks.size() - passed();
    }
  }

  /** Runs {@code config}, printing to {@code out}; the members are stopped and deleted before it returns. */
  public static Report run(ChaosConfig config, PrintWriter out) throws InterruptedException {
    return new ChaosRun(config, out).run();
  }

  private Report run() throws InterruptedException {
    say("starting %d durable members (-data-dir, -cluster, -no-acls, -demo-types, -no-demo-controllers)", config.members());
    long t0 = System.nanoTime();
    try (Members members = Members.start(config)) {
      int leader = members.awaitLeader(config.startTimeout());
      say("members ready after %.1f s, %s leads; %s", (System.nanoTime() - t0) / 1e9, Members.name(leader),
          String.join(" ", members.endpoints()));
      List<Watcher> watchers = new ArrayList<>();
      List<Thread> threads = new ArrayList<>();
      for (int i = 0; i < members.size(); i++) {
        Watcher watcher = new Watcher(i, members.endpoints().get(i));
        watchers.add(watcher);
        threads.add(Thread.ofVirtual().name("chaos-watch-" + Members.name(i)).start(watcher));
      }
      awaitSnapshots(watchers);
      List<Thread> clients = new ArrayList<>();
      for (int c = 0; c < config.clients(); c++) {
        Worker worker = new Worker(c, config, members.endpoints(), () -> running, ops::add);
        clients.add(Thread.ofVirtual().name("chaos-client-" + c).start(worker));
      }
      say("%d clients, each operation through a random member, on %d shared keys and %d of each client's own;"
          + " deadline %s; a watcher on every member", config.clients(), config.sharedKeys(), config.ownKeys(),
          seconds(config.deadline()));
      if (config.warmup().isPositive()) {
        say("clients warming up for %s before the first phase", seconds(config.warmup()));
        Thread.sleep(config.warmup());
      }
      List<Phase> phases = new ArrayList<>();
      FaultRunner faults = new FaultRunner(config, members);
      long first = System.nanoTime();
      try {
        // Every phase once, then round again while the duration lasts.
        for (int i = 0; i < config.faults().size() || System.nanoTime() - first < config.duration().toNanos(); i++) {
          Phase phase = faults.run(i + 1, config.faults().get(i % config.faults().size()));
          phases.add(phase);
          say("%s", Liveness.figures(phase, List.copyOf(ops)));
        }
      } finally {
        running = false;
        for (Thread client : clients) {
          client.join(config.deadline().multipliedBy(3).toMillis() + 1000);
          client.interrupt();
        }
      }
      List<Operation> history = List.copyOf(ops);
      long caughtUp = catchUp(watchers, history);
      FinalState last = list(members);
      watchers.forEach(Watcher::stop);
      for (Thread thread : threads) {
        thread.join(5_000);
      }
      say("clients stopped after %,d operations; watchers caught up in %.1f s", history.size(), caughtUp / 1e9);
      say("done (OK) of sent, by kind: %s", Liveness.byKind(history));

      List<Watcher.Log> logs = watchers.stream().map(Watcher::log).toList();
      List<Watcher.Event> events = new ArrayList<>();
      logs.forEach(log -> events.addAll(log.events()));
      List<Check> checks = new ArrayList<>();
      long checking = System.nanoTime();
      checks.add(LinearizabilityCheck.run(history, events, last));
      checks.addAll(WatchCheck.run(logs, history));
      checks.add(ConvergenceCheck.run(last, logs));
      checks.addAll(Liveness.run(phases, history));
      say("checked in %.1f s", (System.nanoTime() - checking) / 1e9);
      Report report = new Report(checks);
      checks.forEach(check -> say("%s", check));
      say("run took %.0f s", (System.nanoTime() - t0) / 1e9);
      say("%d passed, %d failed", report.passed(), report.failed());
      return report;
    }
  }

  /** Waits (bounded) until every watcher has its first snapshot, so that it covers every write. */
  private static void awaitSnapshots(List<Watcher> watchers) throws InterruptedException {
    long deadline = System.nanoTime() + SNAPSHOT_WAIT.toNanos();
    while (System.nanoTime() < deadline
        && !watchers.stream().allMatch(Watcher::listed)) {
      Thread.sleep(20);
    }
  }

  /** Waits (at most {@link #CATCH_UP}) until every watcher got the last acknowledged revision; how long it took. */
  private static long catchUp(List<Watcher> watchers, List<Operation> history) throws InterruptedException {
    long target = history.stream().filter(o -> o.answered() && o.kind().writes()).mapToLong(Operation::revision).max().orElse(0);
    long start = System.nanoTime();
    while (System.nanoTime() - start < CATCH_UP.toNanos() && watchers.stream().anyMatch(w -> w.lastRevision() < target)) {
      Thread.sleep(20);
    }
    return System.nanoTime() - start;
  }

  /** Every member's keys, listed with a consistent read (tried again within the catch-up bound). */
  private static FinalState list(Members members) throws InterruptedException {
    List<Map<String, String>> values = new ArrayList<>();
    List<Long> calls = new ArrayList<>();
    List<Long> rets = new ArrayList<>();
    List<String> errors = new ArrayList<>();
    ListRequest request = ListRequest.newBuilder().setType(DemoTypes.ARTIST).setTenancy(Tenancy.getDefaultInstance())
        .setNamePrefix(Worker.KEY_PREFIX).setConsistent(true).build();
    for (String endpoint : members.endpoints()) {
      Map<String, String> listed = null;
      String error = "";
      long call = 0;
      long ret = 0;
      long deadline = System.nanoTime() + CATCH_UP.toNanos();
      try (SetpointClient client = SetpointClient.builder().address(endpoint).deadline(LIST_DEADLINE).build()) {
        while (listed == null && System.nanoTime() < deadline) {
          call = System.nanoTime();
          try {
            Map<String, String> got = new HashMap<>();
            for (Resource resource : client.listAll(request)) {
              got.put(resource.getId().getName(), Worker.valueOf(resource));
            }
            ret = System.nanoTime();
            listed = got;
          } catch (SetpointException e) {
            error = e.getMessage();
            Thread.sleep(100);
          }
        }
      }
      values.add(listed);
      calls.add(call);
      rets.add(ret);
      errors.add(error);
    }
    return new FinalState(values, calls, rets, errors);
  }

  private void say(String format, Object... args) {
    out.println(String.format(Locale.ROOT, format, args));
    out.flush();
  }

  private static String seconds(Duration d) {
    return String.format(Locale.ROOT, "%.1f s", d.toMillis() / 1e3);
  }
}
