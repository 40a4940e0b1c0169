package io.setpoint.bench;

import io.setpoint.cli.DurationConverter;
import io.setpoint.loadgen.AgentProcess;
import io.setpoint.loadgen.AotCache;
import io.setpoint.loadgen.EtcdProcess;
import io.setpoint.loadgen.LocalCluster;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * Issue 20: how long a server takes from launch to ready and from SIGTERM to exit, for {@code
 * agent -dev}, a durable single node on a new data directory and etcd, interleaved round by round
 * so that they share the machine's state; and how long a CLI command takes in a fresh JVM.
 */
@Command(
    name = "startup",
    description = {
        "Start and stop times of agent -dev, a durable node and etcd, interleaved (issue 20), and of CLI commands.",
        "Ready: launch until /readyz (etcd: /health) answers 200. Stop: SIGTERM until the process exited."})
final class StartupBench implements Callable<Integer> {
  @Spec private CommandSpec spec;

  @Option(names = "-rounds", paramLabel = "N", defaultValue = "5",
      description = "Starts and stops of each server, interleaved (default: ${DEFAULT-VALUE}).")
  private int rounds;

  @Mixin private EtcdOptions etcd;

  @Option(names = "-agent-jvm-option", paramLabel = "OPT",
      description = "Added to the agents' JVM options; repeat for several.")
  private List<String> agentJvmOptions = new ArrayList<>();

  @Option(names = "-keep-alive", paramLabel = "KIND", defaultValue = "http2",
      description = "The connection the benchmark holds open to each server while stopping it, as a load balancer "
          + "or a scraper would: http2 (Java's HTTP client, upgraded from HTTP/1.1), http1 (HTTP/1.1 keep-alive) "
          + "or none (default: ${DEFAULT-VALUE}).")
  private KeepAlive keepAlive;

  @Option(names = "-start-timeout", paramLabel = "TIME", defaultValue = "60s", converter = DurationConverter.class,
      description = "How long a server may take to be ready (default: ${DEFAULT-VALUE}).")
  private Duration startTimeout;

  /** Which connection stays open to a server while it is stopped. */
  enum KeepAlive {
    HTTP2,
    HTTP1,
    NONE
  }

  /** One server's times over the rounds. */
  private static final class Samples {
    final List<Duration> ready = new ArrayList<>();
    final List<Duration> stop = new ArrayList<>();
    int killed;
  }

  @Override
  public Integer call() throws InterruptedException, IOException {
    Bench.requirePositive(spec, "-rounds", rounds);
    if (startTimeout.isZero() || startTimeout.isNegative()) {
      throw new ParameterException(spec.commandLine(), "-start-timeout must be positive, was " + startTimeout);
    }
    PrintWriter out = spec.commandLine().getOut();
    boolean runEtcd = etcd.runs();
    String etcdLabel = etcd.label();
    out.println(Bench.machine());
    out.println(AotCache.AGENT.path().map(agentCache -> "AOT caches: " + agentCache + " for the agents, "
            + AotCache.CLI.path().map(Path::toString).orElse("none") + " for the CLI commands")
        .orElse("AOT caches: " + Bench.NO_AOT_CACHE));
    out.printf(Locale.ROOT, "load average at start: %s%n", Bench.loadAverage());
    etcd.reportMissing(out);
    out.flush();

    Map<String, Samples> servers = new LinkedHashMap<>();
    List<Duration> version = new ArrayList<>();
    List<Duration> list = new ArrayList<>();
    for (int round = 0; round < rounds; round++) {
      measure(agent(AgentProcess.Mode.DEV), servers.computeIfAbsent("setpoint agent -dev", k -> new Samples()),
          version, list);
      measure(agent(AgentProcess.Mode.DURABLE), servers.computeIfAbsent("setpoint durable node", k -> new Samples()),
          null, null);
      if (runEtcd) {
        measure(() -> EtcdProcess.start(etcd.binary, 1, 0, startTimeout), servers.computeIfAbsent(etcdLabel, k -> new Samples()),
            null, null);
      }
    }

    out.println();
    out.printf(Locale.ROOT, "%d rounds, each server started on a new data directory and stopped with %s; median (min - max):%n",
        rounds, keepAlive == KeepAlive.NONE ? "no connection open" : "an idle " + keepAlive.name() + " connection open");
    out.printf(Locale.ROOT, "%-24s  %-28s  %-28s%n", "server", "ready (launch to ready)", "stop (SIGTERM to exit)");
    for (Map.Entry<String, Samples> e : servers.entrySet()) {
      Samples t = e.getValue();
      out.printf(Locale.ROOT, "%-24s  %-28s  %-28s%s%n", e.getKey(), summary(t.ready), summary(t.stop),
          t.killed == 0 ? "" : "  (" + t.killed + " killed after not exiting in 3 s)");
    }
    Samples etcdTimes = servers.get(etcdLabel);
    if (etcdTimes != null) {
      out.println("setpoint / etcd, medians (above 1: Setpoint slower):");
      for (Map.Entry<String, Samples> e : servers.entrySet()) {
        if (e.getValue() != etcdTimes) {
          out.printf(Locale.ROOT, "  %-22s ready %6.1fx   stop %6.1fx%n", e.getKey(),
              ratio(e.getValue().ready, etcdTimes.ready), ratio(e.getValue().stop, etcdTimes.stop));
        }
      }
    }
    out.println("a CLI command in a fresh JVM, launch to exit; median (min - max):");
    out.printf(Locale.ROOT, "  %-36s %s%n", "setpoint --version", summary(version));
    out.printf(Locale.ROOT, "  %-36s %s%n", "setpoint resource list (to -dev)", summary(list));
    out.printf(Locale.ROOT, "load average at end: %s%n", Bench.loadAverage());
    out.flush();
    return 0;
  }

  /** Starts a server the way {@code start} does. */
  private interface Starter {
    LocalCluster start() throws InterruptedException;
  }

  private Starter agent(AgentProcess.Mode mode) {
    return () -> AgentProcess.start(new AgentProcess.Config(mode, 1, 0, false, List.of(), agentJvmOptions, startTimeout));
  }

  /**
   * Starts, waits for ready, runs the CLI commands against it when asked (into {@code version}
   * and {@code list}), then stops it, adding its times to {@code samples}.
   */
  private void measure(Starter starter, Samples samples, List<Duration> version, List<Duration> list)
      throws InterruptedException, IOException {
    long launched = System.nanoTime();
    try (LocalCluster server = starter.start(); HttpClient connection = keepAliveConnection(server)) {
      samples.ready.add(Duration.ofNanos(System.nanoTime() - launched));
      if (version != null) {
        version.add(cli(List.of("--version")));
        list.add(cli(List.of("resource", "list", "demo.v2.Artist", "-address", server.endpoints().get(0))));
      }
      LocalCluster.Stopped stopped = server.stop();
      samples.stop.add(stopped.took());
      samples.killed += stopped.killed();
    }
  }

  /**
   * A client with one connection open to {@code server} (its first endpoint's {@code /healthz}
   * answered on it), or null for {@link KeepAlive#NONE}.
   */
  private HttpClient keepAliveConnection(LocalCluster server) throws IOException, InterruptedException {
    if (keepAlive == KeepAlive.NONE) {
      return null;
    }
    HttpClient client = HttpClient.newBuilder()
        .version(keepAlive == KeepAlive.HTTP1 ? HttpClient.Version.HTTP_1_1 : HttpClient.Version.HTTP_2)
        .build();
    String health = server.system().equals("etcd") ? "/health" : "/healthz";
    client.send(HttpRequest.newBuilder(URI.create("http://" + server.endpoints().get(0) + health)).build(),
        HttpResponse.BodyHandlers.discarding());
    return client;
  }

  /** Runs the CLI with {@code args} in a new JVM and times it; it must succeed. */
  private Duration cli(List<String> args) throws IOException, InterruptedException {
    return Bench.run("setpoint " + String.join(" ", args), Bench.cliCommand(args), startTimeout).took();
  }

  private static String summary(List<Duration> times) {
    long[] sorted = sortedNanos(times);
    return String.format(Locale.ROOT, "%.3f s (%.3f - %.3f)",
        seconds(median(sorted)), seconds(sorted[0]), seconds(sorted[sorted.length - 1]));
  }

  private static double ratio(List<Duration> setpoint, List<Duration> etcd) {
    return (double) median(sortedNanos(setpoint)) / Math.max(1, median(sortedNanos(etcd)));
  }

  private static long[] sortedNanos(List<Duration> times) {
    return times.stream().mapToLong(Duration::toNanos).sorted().toArray();
  }

  private static long median(long[] sorted) {
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }

  private static double seconds(long nanos) {
    return nanos / 1e9;
  }
}
