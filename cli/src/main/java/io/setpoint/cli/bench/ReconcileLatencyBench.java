package io.setpoint.cli.bench;

import com.google.protobuf.Any;
import io.setpoint.api.v1.Resource;
import io.setpoint.client.SetpointClient;
import io.setpoint.demo.DemoTypes;
import io.setpoint.demo.v2.Artist;
import io.setpoint.loadgen.Latencies;
import io.setpoint.server.agent.Agent;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * Write-to-reconcile-start latency with everything in one process: an in-memory agent, one
 * controller running in it, and writes through the agent's in-process client. One write at a time;
 * each sample is the time from calling write until the reconcile that sees that version starts.
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

  @Override
  public Integer call() throws InterruptedException {
    Bench.requirePositive(spec, "-writes", writes);
    Bench.requireNotNegative(spec, "-warmup", warmup);
    PrintWriter out = spec.commandLine().getOut();
    Probe probe = new Probe();
    try (Agent agent = Agent.builder().port(0).acls(false).types(DemoTypes::register)
        .controllers(m -> m.register(probe.controller(1, Duration.ofHours(8)))).start()) {
      SetpointClient client = agent.client();
      Latencies written = new Latencies(writes);
      Latencies started = new Latencies(writes);
      for (int i = 0; i < warmup + writes; i++) {
        Resource artist = Resource.newBuilder()
            .setId(Probe.artist("latency"))
            .setData(Any.pack(Artist.newBuilder().setName("Latency").setDescription("write " + i).build()))
            .build();
        long t0 = System.nanoTime();
        Resource stored = client.write(artist);
        long acked = System.nanoTime();
        long start = probe.awaitStart(stored, Duration.ofSeconds(10));
        if (i >= warmup) {
          written.add(acked - t0);
          started.add(start - t0);
        }
      }
      out.println(Bench.machine());
      out.printf("writes: %d measured after %d warm-up, one at a time, in-process client%n", writes, warmup);
      out.println("write acknowledged:       " + summary(written));
      out.println("write to reconcile start: " + summary(started));
      out.flush();
    }
    return 0;
  }

  /** "p50 123.4 us, p90 ..., p99 ..., p99.9 ..., max ... (N samples)" */
  private static String summary(Latencies latencies) {
    long[] sorted = latencies.sorted();
    return String.format(Locale.ROOT, "p50 %s, p90 %s, p99 %s, p99.9 %s, max %s (%d samples)",
        micros(Latencies.percentile(sorted, 50)), micros(Latencies.percentile(sorted, 90)),
        micros(Latencies.percentile(sorted, 99)), micros(Latencies.percentile(sorted, 99.9)),
        micros(Latencies.percentile(sorted, 100)), sorted.length);
  }

  private static String micros(long nanos) {
    return String.format(Locale.ROOT, "%.1f us", nanos / 1000.0);
  }
}
