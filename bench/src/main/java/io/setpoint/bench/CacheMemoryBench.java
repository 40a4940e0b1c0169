package io.setpoint.bench;

import io.setpoint.client.SetpointClient;
import io.setpoint.controller.Manager;
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
 * The heap a controller's cache takes for the Artists it watches, against the heap the in-memory
 * store takes for the same Artists. Each figure is the growth of the live heap (after full
 * collections) when the store is filled, and when a manager with one controller over Artists
 * starts and has reconciled every one: once over a socket, as a controller in another process
 * would be (the cache holds its own copies), and once over the agent's in-process transport. The
 * controller has no resync, so its work queue is empty once every Artist is reconciled, and what
 * is measured is the cache.
 */
@Command(
    name = "cache-memory",
    description = "Heap of a controller's cache for N Artists, against the in-memory store's own.")
final class CacheMemoryBench implements Callable<Integer> {
  @Spec private CommandSpec spec;

  @Option(names = "-artists", paramLabel = "N", defaultValue = "100000",
      description = "Artists in the store (default: ${DEFAULT-VALUE}).")
  private int artists;

  @Override
  public Integer call() throws InterruptedException {
    Bench.requirePositive(spec, "-artists", artists);
    PrintWriter out = spec.commandLine().getOut();
    long empty = Bench.liveHeap();
    MemoryBackend store = new MemoryBackend();
    Bench.populate(store, artists);
    long storeBytes = Bench.liveHeap() - empty;
    try (Agent agent = Agent.builder().port(0).acls(false).backend(store).types(DemoTypes::register).start()) {
      long remote;
      try (SetpointClient client = SetpointClient.connect("127.0.0.1:" + agent.port())) {
        remote = cacheBytes(client);
      }
      long inProcess = cacheBytes(agent.client());
      out.println(Bench.machine());
      out.printf(Locale.ROOT, "artists: %d%n", artists);
      out.printf(Locale.ROOT, "store:                  %8.1f MiB (%d bytes per Artist)%n",
          mib(storeBytes), storeBytes / artists);
      out.printf(Locale.ROOT, "cache over a socket:    %8.1f MiB (%.2fx the store)%n",
          mib(remote), (double) remote / storeBytes);
      out.printf(Locale.ROOT, "cache in-process:       %8.1f MiB (%.2fx the store)%n",
          mib(inProcess), (double) inProcess / storeBytes);
      out.flush();
    }
    return 0;
  }

  /** Live-heap growth while a manager over {@code client} holds every Artist in its cache. */
  private long cacheBytes(SetpointClient client) throws InterruptedException {
    long before = Bench.liveHeap();
    Probe probe = new Probe();
    try (Manager manager = Manager.builder().client(client).build()) {
      manager.register(probe.controller(1, Duration.ZERO));
      manager.start();
      probe.awaitReconciles(artists, Duration.ofMinutes(5));
      probe.forgetVersions();
      long after = Bench.liveHeap();
      if (manager.cache().list(DemoTypes.ARTIST).size() != artists) {
        throw new IllegalStateException("the cache does not hold every Artist");
      }
      return after - before;
    }
  }

  private static double mib(long bytes) {
    return bytes / (1024.0 * 1024.0);
  }
}
