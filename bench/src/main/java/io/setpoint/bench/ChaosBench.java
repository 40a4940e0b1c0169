package io.setpoint.bench;

import io.setpoint.cli.DurationConverter;
import io.setpoint.loadgen.chaos.ChaosConfig;
import io.setpoint.loadgen.chaos.ChaosRun;
import io.setpoint.loadgen.chaos.Fault;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code setpoint bench chaos}: the fault-injection suite ({@link ChaosRun}). The defaults are the
 * short run {@code .ci/run} can afford: three members, every fault once, small windows; {@code
 * -duration} repeats the faults until that much time has passed.
 */
@Command(
    name = "chaos",
    description = {
      "Fault-injection suite: durable members as processes, clients and watchers on every member, kills, a paused",
      "leader and a rolling restart; checks linearizability, watch guarantees, convergence and liveness.",
      "Ends with 'N passed, M failed' and exits 1 if any check failed."
    })
final class ChaosBench implements Callable<Integer> {
  @Spec private CommandSpec spec;

  @Option(names = "-members", paramLabel = "N", defaultValue = "3",
      description = "Durable members, each a separate process (default: ${DEFAULT-VALUE}).")
  private int members;

  @Option(names = "-clients", paramLabel = "N", defaultValue = "8",
      description = "Concurrent clients (default: ${DEFAULT-VALUE}).")
  private int clients;

  @Option(names = "-shared-keys", paramLabel = "N", defaultValue = "5",
      description = "Keys every client writes (default: ${DEFAULT-VALUE}).")
  private int sharedKeys;

  @Option(names = "-own-keys", paramLabel = "N", defaultValue = "2",
      description = "Keys of its own per client (default: ${DEFAULT-VALUE}).")
  private int ownKeys;

  @Option(names = "-faults", paramLabel = "LIST", split = ",",
      defaultValue = "kill-follower,kill-leader,pause-leader,partition-leader,rolling-restart,replace-member",
      description = "Phases in order, comma-separated, from: none, kill-follower, kill-leader, pause-leader,"
          + " rolling-restart, partition-leader, partition-follower, partition-minority, replace-member,"
          + " full-disk (a tmpfs per member, which needs root)"
          + " (default: ${DEFAULT-VALUE})."
          + " With a partition the members dial one another through proxies of the suite's.")
  private List<String> faults;

  @Option(names = "-duration", paramLabel = "TIME", defaultValue = "0s", converter = DurationConverter.class,
      description = "Run the phases again, in order, until this much time has passed (default: each once).")
  private Duration duration;

  @Option(names = "-warmup", paramLabel = "TIME", defaultValue = "5s", converter = DurationConverter.class,
      description = "How long the clients run before the first phase: checked for safety, timed by no liveness check,"
          + " since the members' and the clients' JVMs have only just started; `bench writes -first` measures that"
          + " (default: ${DEFAULT-VALUE}).")
  private Duration warmup;

  @Option(names = "-calm", paramLabel = "TIME", defaultValue = "2s", converter = DurationConverter.class,
      description = "Each phase's time before its fault (default: ${DEFAULT-VALUE}).")
  private Duration calm;

  @Option(names = "-window", paramLabel = "TIME", defaultValue = "3s", converter = DurationConverter.class,
      description = "How long a fault lasts; a rolling restart takes as long as its restarts (default: ${DEFAULT-VALUE}).")
  private Duration window;

  @Option(names = "-heal", paramLabel = "TIME", defaultValue = "6s", converter = DurationConverter.class,
      description = "Each phase's time after its fault healed (default: ${DEFAULT-VALUE}).")
  private Duration heal;

  @Option(names = "-ops-per-client", paramLabel = "N", defaultValue = "200000",
      description = "A client stops after this many operations (default: ${DEFAULT-VALUE}).")
  private long opsPerClient;

  @Option(names = "-deadline", paramLabel = "TIME", defaultValue = "2s", converter = DurationConverter.class,
      description = "Each client call's deadline (default: ${DEFAULT-VALUE}).")
  private Duration deadline;

  @Option(names = "-seed", paramLabel = "N",
      description = "Seed of the clients' and faults' random choices (default: a new one, printed).")
  private Long seed;

  @Option(names = "-agent-arg", paramLabel = "ARG", preprocessor = AgentArgument.class,
      description = "Extra argument for every member (repeatable).")
  private List<String> agentArgs = new ArrayList<>();

  @Option(names = "-agent-jvm-option", paramLabel = "OPT",
      description = "Extra JVM option for every member (repeatable), after its -Xmx512m, "
          + "e.g. -Dsetpoint.raft.off=inline-appends.")
  private List<String> agentJvmOptions = new ArrayList<>();

  @Override
  public Integer call() throws Exception {
    Bench.requirePositive(spec, "-members", members);
    Bench.requirePositive(spec, "-clients", clients);
    Bench.requirePositive(spec, "-shared-keys", sharedKeys);
    Bench.requireNotNegative(spec, "-own-keys", ownKeys);
    List<Fault> phases = phases();
    long chosenSeed = seed != null ? seed : System.nanoTime();
    ChaosConfig config;
    try {
      config = new ChaosConfig(members, clients, sharedKeys, ownKeys, phases, duration, warmup, calm, window, heal, opsPerClient,
          deadline, Duration.ofSeconds(90), chosenSeed, agentArgs, agentJvmOptions);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
    PrintWriter out = spec.commandLine().getOut();
    out.println(Bench.machine());
    out.printf(Locale.ROOT, "seed %d, phases: %s%s%n", chosenSeed,
        phases.stream().map(Fault::optionName).collect(Collectors.joining(", ")),
        duration.isZero() ? "" : ", again until " + duration.toSeconds() + " s have passed");
    if (!agentJvmOptions.isEmpty()) {
      out.printf(Locale.ROOT, "member JVM options added: %s%n", String.join(" ", agentJvmOptions));
    }
    out.flush();
    try {
      ChaosRun.Report report = ChaosRun.run(config, out);
      return report.failed() == 0 ? 0 : 1;
    } catch (IllegalStateException e) {
      // A member that would not start or a cluster that never elected: no checks to report.
      out.println("could not run: " + e.getMessage());
      out.flush();
      return 1;
    }
  }

  private List<Fault> phases() {
    List<Fault> once = new ArrayList<>();
    for (String name : faults) {
      once.add(Arrays.stream(Fault.values()).filter(f -> f.optionName().equals(name.strip())).findFirst()
          .orElseThrow(() -> new ParameterException(spec.commandLine(), "-faults: unknown fault '" + name + "', expected one of "
              + Arrays.stream(Fault.values()).map(Fault::optionName).collect(Collectors.joining(", ")))));
    }
    if (once.isEmpty()) {
      throw new ParameterException(spec.commandLine(), "-faults names no phase");
    }
    return once;
  }
}
