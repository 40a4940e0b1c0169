package io.setpoint.bench;

import com.google.protobuf.Any;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.samplers.Sampler;
import io.setpoint.api.v1.Resource;
import io.setpoint.client.SetpointClient;
import io.setpoint.demo.DemoTypes;
import io.setpoint.demo.v2.Artist;
import io.setpoint.loadgen.Latencies;
import io.setpoint.server.Agent;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * Write-to-reconcile-start latency with everything in one process: an in-memory agent, one
 * controller running in it, and writes through the agent's in-process client. One write at a time;
 * each sample is the time from calling write until the reconcile that sees that version starts.
 * {@code -tracing compare} measures what installing OpenTelemetry costs when it samples nothing.
 */
@Command(
    name = "reconcile-latency",
    description = "Write-to-reconcile-start latency of an in-process controller (in-memory store).")
final class ReconcileLatencyBench implements Callable<Integer> {
  @Spec private CommandSpec spec;

  @Option(names = "-writes", paramLabel = "N", defaultValue = "20000",
      description = "Measured writes (default: ${DEFAULT-VALUE}).")
  private int writes;

  @Option(names = "-warmup", paramLabel = "N", defaultValue = "20000",
      description = "Writes before measuring, to warm up the JIT (default: ${DEFAULT-VALUE}).")
  private int warmup;

  @Option(names = "-tracing", paramLabel = "MODE", defaultValue = "off",
      description = "off (default): no OpenTelemetry. compare: rounds without tracing interleaved with rounds "
          + "with the OpenTelemetry SDK installed and sampling nothing.")
  private TracingMode tracing;

  @Option(names = "-rounds", paramLabel = "N", defaultValue = "3",
      description = "With -tracing compare: rounds of each, alternating (default: ${DEFAULT-VALUE}).")
  private int rounds;

  enum TracingMode { off, compare }

  /** One measured round: its samples, and the writes per second one writer at a time reached. */
  private record Round(Latencies written, Latencies started, double writesPerSecond) {}

  @Override
  public Integer call() throws InterruptedException {
    Bench.requirePositive(spec, "-writes", writes);
    Bench.requireNotNegative(spec, "-warmup", warmup);
    Bench.requirePositive(spec, "-rounds", rounds);
    PrintWriter out = spec.commandLine().getOut();
    out.println(Bench.machine());
    out.printf("writes: %d measured after %d warm-up per round, one at a time, in-process client%n", writes, warmup);
    if (tracing == TracingMode.off) {
      Round round = round(null);
      out.println("write acknowledged:       " + summary(round.written()));
      out.println("write to reconcile start: " + summary(round.started()));
      out.printf(Locale.ROOT, "writes/s:                 %.0f%n", round.writesPerSecond());
      out.flush();
      return 0;
    }
    // Interleaved, so drift (JIT, heap, the machine) lands on both sides alike.
    List<Round> plain = new ArrayList<>();
    List<Round> sampledOut = new ArrayList<>();
    for (int r = 0; r < rounds; r++) {
      plain.add(round(null));
      try (OpenTelemetrySdk sdk = samplingNothing()) {
        sampledOut.add(round(sdk));
      }
    }
    report(out, "no tracing", plain);
    report(out, "SDK, sampling 0", sampledOut);
    out.flush();
    return 0;
  }

  /** What {@code OTEL_TRACES_SAMPLER=parentbased_traceidratio}, {@code OTEL_TRACES_SAMPLER_ARG=0} installs. */
  private static OpenTelemetrySdk samplingNothing() {
    return OpenTelemetrySdk.builder()
        .setTracerProvider(SdkTracerProvider.builder()
            .setSampler(Sampler.parentBased(Sampler.traceIdRatioBased(0.0)))
            .build())
        .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance()))
        .build();
  }

  private Round round(OpenTelemetry openTelemetry) throws InterruptedException {
    Probe probe = new Probe();
    Agent.Builder builder = Agent.builder().port(0).acls(false).types(DemoTypes::register)
        .controllers(m -> m.register(probe.controller(1, Duration.ofHours(8))));
    if (openTelemetry != null) {
      builder.openTelemetry(openTelemetry);
    }
    try (Agent agent = builder.start()) {
      SetpointClient client = agent.client();
      Latencies written = new Latencies(writes);
      Latencies started = new Latencies(writes);
      long measuring = 0;
      for (int i = 0; i < warmup + writes; i++) {
        Resource artist = Resource.newBuilder()
            .setId(Probe.artist("latency"))
            .setData(Any.pack(Artist.newBuilder().setName("Latency").setDescription("write " + i).build()))
            .build();
        long t0 = System.nanoTime();
        if (i == warmup) {
          measuring = t0;
        }
        Resource stored = client.write(artist);
        long acked = System.nanoTime();
        long start = probe.awaitStart(stored, Duration.ofSeconds(10));
        if (i >= warmup) {
          written.add(acked - t0);
          started.add(start - t0);
        }
      }
      double seconds = (System.nanoTime() - measuring) / 1e9;
      return new Round(written, started, writes / seconds);
    }
  }

  private static void report(PrintWriter out, String label, List<Round> rounds) {
    out.println(label + ":");
    out.println("  write acknowledged:       "
        + summary(Latencies.sortedUnion(rounds.stream().map(Round::written).toList())));
    out.println("  write to reconcile start: "
        + summary(Latencies.sortedUnion(rounds.stream().map(Round::started).toList())));
    out.println("  writes/s per round:       " + rounds.stream()
        .map(r -> String.format(Locale.ROOT, "%.0f", r.writesPerSecond())).collect(Collectors.joining(", ")));
  }

  private static String summary(Latencies latencies) {
    return summary(latencies.sorted());
  }

  /** "p50 123.4 us, p90 ..., p99 ..., p99.9 ..., max ... (N samples)" */
  private static String summary(long[] sorted) {
    return String.format(Locale.ROOT, "p50 %s, p90 %s, p99 %s, p99.9 %s, max %s (%d samples)",
        micros(Latencies.percentile(sorted, 50)), micros(Latencies.percentile(sorted, 90)),
        micros(Latencies.percentile(sorted, 99)), micros(Latencies.percentile(sorted, 99.9)),
        micros(Latencies.percentile(sorted, 100)), sorted.length);
  }

  private static String micros(long nanos) {
    return String.format(Locale.ROOT, "%.1f us", nanos / 1000.0);
  }
}
