package io.setpoint.bench;

import io.setpoint.cli.DurationConverter;
import io.setpoint.loadgen.AgentProcess;
import io.setpoint.loadgen.CpuTime;
import io.setpoint.loadgen.EtcdProcess;
import io.setpoint.loadgen.EtcdTarget;
import io.setpoint.loadgen.LocalCluster;
import io.setpoint.loadgen.Op;
import io.setpoint.loadgen.Result;
import io.setpoint.loadgen.SetpointTarget;
import io.setpoint.loadgen.Target;
import io.setpoint.loadgen.WriteLoad;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * Issue 4: write throughput and latency of Setpoint against etcd, measured the same way in the
 * same run. Starts the servers of each system itself on loopback (separate processes, one system
 * at a time), drives them with the same closed-loop generator and grpc-java client stack
 * ({@code io.setpoint.loadgen}), and prints writes/s, latency percentiles and the ratios.
 */
@Command(
    name = "writes",
    description = {
      "Write throughput and latency of Setpoint against etcd (issue 4): blind puts and CAS writes,",
      "same clients, keys, 256 B data and window for both; servers started here on loopback.",
      "etcd runs only if installed (Debian's etcd-server: /usr/bin/etcd); otherwise Setpoint is reported alone."
    })
final class WritesBench implements Callable<Integer> {
  private static final long CALL_DEADLINE_MILLIS = 10_000;
  static final String DEFAULT_AGENT_HEAP = "1g";
  /** {@code -agent-heap}'s value for the JVM's own heap sizing. */
  static final String JVM_HEAP = "jvm";
  private static final Pattern HEAP_SIZE = Pattern.compile("[1-9][0-9]*[kKmMgG]?");

  @Spec private CommandSpec spec;

  @Option(names = "-nodes", paramLabel = "N", split = ",", defaultValue = "1",
      description = "Cluster sizes to run, e.g. 1,3 (default: ${DEFAULT-VALUE}).")
  private List<Integer> nodes;

  @Option(names = "-ops", paramLabel = "OP", split = ",", defaultValue = "put,cas",
      description = "Operations: put (blind write), cas (write on the expected version) (default: ${DEFAULT-VALUE}).")
  private List<Op> ops;

  @Option(names = "-clients", paramLabel = "N", defaultValue = "16",
      description = "Closed-loop clients, one write in flight each, spread over the nodes (default: ${DEFAULT-VALUE}).")
  private int clients;

  @Option(names = "-keys", paramLabel = "N", defaultValue = "100",
      description = "Keys per client, written in turn; each is written once before the runs (default: ${DEFAULT-VALUE}).")
  private int keys;

  @Option(names = "-shared-keys",
      description = "Every client writes the same -keys keys, each from its own first key, instead of keys of its "
          + "own: blind writers of one key race each other (a compare-and-swap that loses counts as failed).")
  private boolean sharedKeys;

  @Option(names = "-warmup", paramLabel = "TIME", defaultValue = "60s", converter = DurationConverter.class,
      description = "Load before measuring, e.g. 2m or 500ms (default: ${DEFAULT-VALUE}). The agents' JIT "
          + "compiles for a minute or more on a 2-core machine; shorter warm-ups measure the compiler.")
  private Duration warmup;

  @Option(names = "-first", paramLabel = "TIME", defaultValue = "30s", converter = DurationConverter.class,
      description = "Also measure the first TIME of load, from the first write after the servers started, "
          + "before any warm-up: what a user's new cluster does (default: ${DEFAULT-VALUE}; 0 to skip). "
          + "Measured with the first of -ops; the warm-up follows it.")
  private Duration first;

  @Option(names = "-client-warmup", paramLabel = "TIME", defaultValue = "20s", converter = DurationConverter.class,
      description = "Before the first window of each system, warm this JVM's load generator: a throwaway "
          + "instance of the system is started, written to for TIME and stopped, and a fresh one is measured. "
          + "Without it the generator's own JIT compiler shares the cores with the first window of whichever "
          + "system runs first (default: ${DEFAULT-VALUE}; 0 to skip).")
  private Duration clientWarmup;

  @Option(names = "-duration", paramLabel = "TIME", defaultValue = "10s", converter = DurationConverter.class,
      description = "Measured window per system and operation (default: ${DEFAULT-VALUE}).")
  private Duration duration;

  @Option(names = "-leader", paramLabel = "K", defaultValue = "0",
      description = "Before the load, hand leadership of each cluster to its member K (1 to the cluster's size; "
          + "client i writes to member i mod size + 1, so with one client, 1 puts it on the leader and 2 on a "
          + "follower); ignored for one node. 0: the member the first election chose (default: ${DEFAULT-VALUE}).")
  private int leader;

  @Option(names = "-setpoint-mode", paramLabel = "MODE", defaultValue = "durable",
      description = "durable: agents with a data dir (Raft log, fsynced), one node or a cluster; "
          + "dev: 'agent -dev', in memory, 1 node only (default: ${DEFAULT-VALUE}).")
  private AgentProcess.Mode setpointMode;

  @Option(names = "-no-setpoint", description = "Run etcd only.")
  private boolean noSetpoint;

  @Option(names = "-agent-port", paramLabel = "PORT", defaultValue = "0",
      description = "First port of the agents: agent i gets PORT+2i and Raft port PORT+2i+1 (default: free ports).")
  private int agentPort;

  @Option(names = "-agent-arg", paramLabel = "ARG", preprocessor = AgentArgument.class,
      description = "Extra argument for every agent (repeatable), appended to the ones the benchmark passes.")
  private List<String> agentArgs = new ArrayList<>();

  @Option(names = "-agent-jvm-option", paramLabel = "OPT",
      description = "Extra JVM option for every agent (repeatable), after the heap of -agent-heap, e.g. -XX:+UseZGC.")
  private List<String> agentJvmOptions = new ArrayList<>();

  @Option(names = "-agent-heap", paramLabel = "SIZE", defaultValue = DEFAULT_AGENT_HEAP,
      description = "Every agent's heap, fixed (-Xms and -Xmx), e.g. 512m or 2g; 'jvm' leaves the JVM's own sizing "
          + "(default: ${DEFAULT-VALUE}). The JVM's own starts small and grows towards a quarter of the machine's "
          + "memory under load, and a follower's heap grown to 3 GiB paused it for up to 720 ms per young GC.")
  private String agentHeap;

  @Option(names = "-setpoint-acls", paramLabel = "MODE", defaultValue = "off",
      description = "off = agents without ACLs (-no-acls; -dev has none), as etcd runs without auth; "
          + "bootstrap = ACLs on (-dev gets -acls), the benchmark bootstraps a management token and "
          + "writes with it (default: ${DEFAULT-VALUE}).")
  private Acls acls;

  @Option(names = "-token", paramLabel = "TOKEN", defaultValue = "",
      description = "ACL token sent to the agents, instead of bootstrapping one (default: none).")
  private String token;

  @Mixin private EtcdOptions etcd;

  @Option(names = "-etcd-port", paramLabel = "PORT", defaultValue = "0",
      description = "First port of the etcd members: member i gets client port PORT+2i and peer port PORT+2i+1 (default: free ports).")
  private int etcdPort;

  @Option(names = "-start-timeout", paramLabel = "TIME", defaultValue = "60s", converter = DurationConverter.class,
      description = "How long servers may take to become ready and writable (default: ${DEFAULT-VALUE}).")
  private Duration startTimeout;

  /** The systems whose throwaway instance has warmed the load generator in this run. */
  private final Set<String> generatorWarmedOn = new HashSet<>();

  @Override
  public Integer call() throws InterruptedException {
    validate();
    PrintWriter out = spec.commandLine().getOut();
    WriteLoad.Options options = new WriteLoad.Options(clients, keys, sharedKeys, warmup, duration);
    boolean runEtcd = etcd.runs();
    String etcdLabel = etcd.label();
    String setpointLabel = (setpointMode == AgentProcess.Mode.DEV ? "setpoint dev (memory)" : "setpoint (raft)")
        + (acls == Acls.BOOTSTRAP ? " acl" : "");

    out.println(Bench.machine());
    out.printf(Locale.ROOT, "load average at start: %s%n", Bench.loadAverage());
    out.printf(Locale.ROOT,
        "%d closed-loop clients (one write in flight each), %d keys per client, %d B data, %swarm-up %s, measured %s%n",
        clients, keys, Target.PAYLOAD_BYTES,
        first.isZero() ? "" : "first " + Bench.seconds(first) + " measured from the first write"
            + (clientWarmup.isZero() ? "" : " (the load generator warmed first, " + Bench.seconds(clientWarmup)
                + " on a throwaway instance of each system)")
            + ", then ",
        Bench.seconds(warmup), Bench.seconds(duration));
    if (!noSetpoint) {
      List<String> jvm = agentJvmOptions(agentHeap, agentJvmOptions);
      out.printf(Locale.ROOT, "agent JVM options: %s%n", jvm.isEmpty() ? "(none)" : String.join(" ", jvm));
      out.println(Bench.agentAotCache());
    }
    etcd.reportMissing(out);
    out.flush();

    List<WritesComparison.Row> rows = new ArrayList<>();
    boolean failed = false;
    for (int n : nodes) {
      if (!noSetpoint) {
        if (setpointMode == AgentProcess.Mode.DEV && n != 1) {
          out.printf(Locale.ROOT, "%s: skipped at %d nodes (-dev agents do not cluster)%n", setpointLabel, n);
        } else {
          failed |= !runSystem(out, setpointLabel, n, options, rows, () -> {
            LocalCluster cluster = AgentProcess.start(new AgentProcess.Config(
                setpointMode, n, agentPort, acls == Acls.BOOTSTRAP, agentArgs, agentJvmOptions(agentHeap, agentJvmOptions),
                startTimeout));
            String secret = token;
            try {
              if (secret.isEmpty() && acls == Acls.BOOTSTRAP) {
                secret = SetpointTarget.bootstrapToken(cluster.endpoints().get(0), startTimeout);
              }
            } catch (RuntimeException | InterruptedException e) {
              cluster.close();
              throw e;
            }
            return new Started(cluster, SetpointTarget.connect(cluster.endpoints(), secret, CALL_DEADLINE_MILLIS));
          });
        }
      }
      if (runEtcd) {
        failed |= !runSystem(out, etcdLabel, n, options, rows, () -> {
          LocalCluster cluster = EtcdProcess.start(etcd.binary, n, etcdPort, startTimeout);
          return new Started(cluster, EtcdTarget.connect(cluster.endpoints(), CALL_DEADLINE_MILLIS));
        });
      }
    }

    out.println();
    out.printf(Locale.ROOT, "%-5s  %-26s  %-3s  %-5s  %10s  %10s  %10s  %10s  %6s  %14s  %10s  %9s%n",
        "nodes", "system", "op", "phase", "writes/s", "p50", "p99", "max", "errors", "server CPU/w", "of it sys", "on leader");
    for (WritesComparison.Row row : rows) {
      Result r = row.result();
      out.printf(Locale.ROOT, "%-5d  %-26s  %-3s  %-5s  %,10.0f  %10s  %10s  %10s  %6d  %14s  %10s  %9s%n",
          r.nodes(), row.label(), r.op().label(), row.phase().label(), r.writesPerSecond(),
          Result.millis(r.p50()), Result.millis(r.p99()), Result.millis(r.max()), r.errors(),
          micros(r.serverCpuMicrosPerWrite()), micros(r.serverSystemCpuMicrosPerWrite()), row.onLeader());
    }
    if (nodes.stream().anyMatch(n -> n > 1)) {
      out.println("on leader: clients writing to the member that led at the end of the window; the others' writes "
          + "take a hop to it");
    }
    WritesComparison.print(out, rows, setpointLabel, etcdLabel);
    out.printf(Locale.ROOT, "load average at end: %s%n", Bench.loadAverage());
    out.flush();
    return failed ? 1 : 0;
  }

  private void validate() {
    Bench.requirePositive(spec, "-clients", clients);
    Bench.requirePositive(spec, "-keys", keys);
    if (keys > 9999 || clients > 999) {
      throw new ParameterException(spec.commandLine(), "at most 999 clients and 9999 keys per client");
    }
    if (duration.isZero() || duration.isNegative()) {
      throw new ParameterException(spec.commandLine(), "-duration must be positive, was " + duration);
    }
    if (warmup.isNegative()) {
      throw new ParameterException(spec.commandLine(), "-warmup must not be negative, was " + warmup);
    }
    for (int n : nodes) {
      Bench.requirePositive(spec, "-nodes", n);
      if (n > 1 && leader > n) {
        throw new ParameterException(spec.commandLine(),
            "-leader must be a member of every cluster (at most " + n + " for -nodes " + n + "), was " + leader);
      }
    }
    if (leader < 0) {
      throw new ParameterException(spec.commandLine(), "-leader must be 0 or a member number from 1, was " + leader);
    }
    if (noSetpoint && etcd.off) {
      throw new ParameterException(spec.commandLine(), "-no-setpoint and -no-etcd leave nothing to run");
    }
    if (!agentHeap.equals(JVM_HEAP) && !HEAP_SIZE.matcher(agentHeap).matches()) {
      throw new ParameterException(spec.commandLine(),
          "-agent-heap must be a size such as 512m or 2g, or '" + JVM_HEAP + "', was '" + agentHeap + "'");
    }
  }

  /**
   * The agents' JVM options: a heap fixed at {@code heap} (unless it is {@link #JVM_HEAP}), then
   * {@code extra}, whose own -Xms or -Xmx wins as the later one. A heap the JVM sizes itself starts
   * at a 64th of the machine's memory and is grown under load towards a quarter of it, and every
   * young GC that grows it touches fresh pages (as much system time as collecting) and pauses that
   * member for long, which every writer through it waits out (docs/benchmarks-history.md).
   */
  static List<String> agentJvmOptions(String heap, List<String> extra) {
    List<String> options = new ArrayList<>();
    if (!heap.equals(JVM_HEAP)) {
      options.add("-Xms" + heap);
      options.add("-Xmx" + heap);
    }
    options.addAll(extra);
    return options;
  }

  /**
   * Starts one system, runs every operation against it, stops it. False if it failed. The first
   * time a system runs with a first window, a throwaway instance of it warms the load generator.
   */
  private boolean runSystem(
      PrintWriter out, String label, int n, WriteLoad.Options options, List<WritesComparison.Row> rows, Starter starter)
      throws InterruptedException {
    if (!first.isZero() && !clientWarmup.isZero() && generatorWarmedOn.add(label)
        && !warmLoadGenerator(out, label, n, options, starter)) {
      return false;
    }
    long launched = System.nanoTime();
    Started started = start(out, label, n, starter);
    if (started == null) {
      return false;
    }
    try (LocalCluster cluster = started.cluster(); Target target = started.target()) {
      WriteLoad.awaitWritable(target, startTimeout);
      if (leader > 0 && target.endpoints() > 1) {
        target.moveLeader(leader - 1, startTimeout);
        out.printf(Locale.ROOT, "  member %d leads%n", leader);
      }
      long t0 = System.nanoTime();
      WriteLoad load = WriteLoad.prepare(target, options);
      out.printf(Locale.ROOT, "  wrote the initial keys (%d writes) in %.1f s, %.1f s after launch%n",
          options.clients() * options.keysPerClient(), (System.nanoTime() - t0) / 1e9,
          (System.nanoTime() - launched) / 1e9);
      if (!first.isZero()) {
        record(out, rows, label, WritesComparison.Phase.FIRST, load.run(ops.get(0), Duration.ZERO, first, cluster::cpu), target);
      }
      for (Op op : ops) {
        record(out, rows, label, WritesComparison.Phase.WARM, load.run(op, cluster::cpu), target);
      }
      if (!cluster.allAlive()) {
        out.printf(Locale.ROOT, "%s: a server exited during the run%n", label);
        return false;
      }
      return true;
    } catch (RuntimeException e) {
      out.printf(Locale.ROOT, "%s: failed: %s%n", system(label, n), e.getMessage());
      out.flush();
      return false;
    }
  }

  /**
   * Writes to a throwaway instance of the system for {@link #clientWarmup} and stops it, so that
   * this JVM's JIT has compiled the load generator before a first window. False if it failed.
   */
  private boolean warmLoadGenerator(PrintWriter out, String label, int n, WriteLoad.Options options, Starter starter)
      throws InterruptedException {
    Started throwaway = start(out, label, n, starter);
    if (throwaway == null) {
      return false;
    }
    try (LocalCluster cluster = throwaway.cluster(); Target target = throwaway.target()) {
      WriteLoad.awaitWritable(target, startTimeout);
      Result result = WriteLoad.prepare(target, options).run(ops.get(0), Duration.ZERO, clientWarmup, () -> CpuTime.UNKNOWN);
      out.printf(Locale.ROOT, "  load generator warmed: %,.0f writes/s for %s on this instance; stopping it%n",
          result.writesPerSecond(), Bench.seconds(clientWarmup));
      return true;
    } catch (RuntimeException e) {
      out.printf(Locale.ROOT, "%s: failed while warming the load generator: %s%n", system(label, n), e.getMessage());
      out.flush();
      return false;
    }
  }

  /** Starts one system and says so; null (and why, printed) if it could not start. */
  private static Started start(PrintWriter out, String label, int n, Starter starter) throws InterruptedException {
    out.printf(Locale.ROOT, "%s: starting%n", system(label, n));
    out.flush();
    try {
      return starter.start();
    } catch (RuntimeException e) {
      out.printf(Locale.ROOT, "%s: could not start: %s%n", system(label, n), e.getMessage());
      if (String.valueOf(e.getMessage()).contains("Unknown option: '-no-acls'")) {
        out.println("(this agent has no -no-acls flag: run with -setpoint-acls bootstrap to benchmark it with ACLs on)");
      }
      out.flush();
      return null;
    }
  }

  /** {@code setpoint (raft), 3 nodes}: how the output names one system at one size. */
  private static String system(String label, int n) {
    return label + ", " + n + " node" + (n == 1 ? "" : "s");
  }

  /** {@code 1,234 us}, or {@code -} when unknown. */
  private static String micros(double value) {
    return Double.isNaN(value) ? "-" : String.format(Locale.ROOT, "%,.0f us", value);
  }

  /** Adds a window's row, with who led at its end, and prints it. */
  private void record(PrintWriter out, List<WritesComparison.Row> rows, String label, WritesComparison.Phase phase, Result result, Target target) {
    String onLeader = clientsOnLeader(target, clients);
    rows.add(new WritesComparison.Row(label, phase, result, onLeader));
    out.println("  " + (phase == WritesComparison.Phase.FIRST ? "first: " : "") + result + "; clients on the leader at the end: " + onLeader);
    out.flush();
  }

  /**
   * How many of the {@code clients} write to the member that leads now, as "k/clients", or "?"
   * when no member says it leads. Client i writes to endpoint i modulo the endpoints.
   */
  private static String clientsOnLeader(Target target, int clients) {
    OptionalInt leader = target.leaderEndpoint();
    if (leader.isEmpty()) {
      return "?";
    }
    int endpoints = target.endpoints();
    int onIt = clients / endpoints + (leader.getAsInt() < clients % endpoints ? 1 : 0);
    return onIt + "/" + clients;
  }

  /** Whether durable agents enforce ACLs during the benchmark. */
  enum Acls {
    OFF,
    BOOTSTRAP
  }

  private record Started(LocalCluster cluster, Target target) {}

  @FunctionalInterface
  private interface Starter {
    Started start() throws InterruptedException;
  }
}
