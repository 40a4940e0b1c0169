package io.setpoint.bench;

import io.setpoint.demo.DemoTypes;
import io.setpoint.server.Agent;
import io.setpoint.storage.memory.MemoryBackend;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * A cold start: the store already holds the Artists, then an agent starts with a controller whose
 * reconciler does nothing, and the clock runs until every Artist has been reconciled once. That
 * covers the agent's start, priming the cache through a watch, and the startup sweep.
 */
@Command(
    name = "cold-start",
    description = "Time from agent start until a no-op controller has reconciled every stored Artist.")
final class ColdStartBench implements Callable<Integer> {
  @Spec private CommandSpec spec;

  @Option(names = "-artists", paramLabel = "N", defaultValue = "100000",
      description = "Artists in the store (default: ${DEFAULT-VALUE}).")
  private int artists;

  @Option(names = "-concurrency", paramLabel = "N", defaultValue = "1",
      description = "Reconcile workers of the controller (default: ${DEFAULT-VALUE}).")
  private int concurrency;

  @Override
  public Integer call() throws InterruptedException {
    Bench.requirePositive(spec, "-artists", artists);
    Bench.requirePositive(spec, "-concurrency", concurrency);
    PrintWriter out = spec.commandLine().getOut();
    MemoryBackend store = new MemoryBackend();
    Bench.populate(store, artists);
    Probe probe = new Probe();
    long t0 = System.nanoTime();
    try (Agent agent = Agent.builder().port(0).acls(false).backend(store).types(DemoTypes::register)
        .controllers(m -> m.register(probe.controller(concurrency, Duration.ofHours(8)))).start()) {
      long up = System.nanoTime();
      probe.awaitReconciles(1, Duration.ofMinutes(5));
      long first = System.nanoTime();
      probe.awaitReconciles(artists, Duration.ofMinutes(5));
      long all = System.nanoTime();
      out.println(Bench.machine());
      out.printf(Locale.ROOT, "artists: %d, controller concurrency %d, no-op reconciler%n", artists, concurrency);
      out.printf(Locale.ROOT, "agent started:         %8.3f s%n", seconds(up - t0));
      out.printf(Locale.ROOT, "first reconcile:       %8.3f s (cache primed)%n", seconds(first - t0));
      out.printf(Locale.ROOT, "all reconciled:        %8.3f s (%.0f reconciles/s after the first)%n",
          seconds(all - t0), (artists - 1) / Math.max(1e-9, seconds(all - first)));
      out.flush();
    }
    return 0;
  }

  private static double seconds(long nanos) {
    return nanos / 1e9;
  }
}
