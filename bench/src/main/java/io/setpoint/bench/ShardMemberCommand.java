package io.setpoint.bench;

import io.setpoint.api.Shards;
import io.setpoint.api.v1.HashRange;
import io.setpoint.api.v1.Resource;
import io.setpoint.cli.DurationConverter;
import io.setpoint.cli.ElectionOptions;
import io.setpoint.client.SetpointClient;
import io.setpoint.controller.Controller.Placement;
import io.setpoint.controller.Controller;
import io.setpoint.controller.Manager;
import io.setpoint.controller.Request;
import io.setpoint.controller.Result;
import io.setpoint.controller.Sharding;
import io.setpoint.demo.DemoTypes;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * One member of {@link ShardsBench}'s shard group, in a process of its own: a manager whose one
 * SHARDED controller over Artists spends {@code -io} per key (standing for the I/O a real
 * reconciler does) and writes nothing. Driven by lines on stdin, answered on stdout:
 * <ul>
 *   <li>{@code stats}: {@code stats MEMBERS SLOTS CACHED RUNNING}, the group's size as this member
 *       sees it, the 1,024ths of the hash space it handles, the Artists it caches, and whether its
 *       controller runs;
 *   <li>{@code pass}: reconciles every Artist it owns once more, by manual trigger, and answers
 *       {@code pass KEYS NANOS} when all are done;
 *   <li>{@code keys FILE}: writes the names reconciled in the last pass to FILE, one per line;
 *   <li>{@code heap}: {@code heap BYTES}, the live heap less the one just before the manager
 *       started (connected, its controller registered): what the cache and the queue hold.
 * </ul>
 */
@Command(name = "shard-member", hidden = true, description = "A member process of 'bench shards'.")
final class ShardMemberCommand implements Callable<Integer> {
  private static final Logger log = LoggerFactory.getLogger(ShardMemberCommand.class);
  static final String GROUP = "bench-shards";
  static final String CONTROLLER = "bench-shards";

  @Option(names = "-address", required = true, paramLabel = "HOST:PORT", description = "The agent.")
  private String address;

  @Option(names = "-member", required = true, paramLabel = "NAME", description = "This member's name.")
  private String member;

  @Option(names = "-concurrency", defaultValue = "4", paramLabel = "N", description = "Reconcile workers.")
  private int concurrency;

  @Option(names = "-io", defaultValue = "1ms", converter = DurationConverter.class, paramLabel = "TIME",
      description = "Time each reconcile waits, standing for its I/O.")
  private Duration io;

  @Mixin private ElectionOptions timing;

  private final Set<String> reconciled = ConcurrentHashMap.newKeySet();
  /** How many keys the pass under way reconciles. */
  private volatile int target = Integer.MAX_VALUE;
  private final Object passDone = new Object();

  @Override
  public Integer call() throws Exception {
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    try (SetpointClient client = SetpointClient.connect(address);
        Manager manager = Manager.builder().client(client)
            .sharding(timing.applyTo(Sharding.named(GROUP).member(member))).build()) {
      manager.register(Controller.forType(DemoTypes.ARTIST).named(CONTROLLER).placement(Placement.SHARDED)
          .concurrency(concurrency).resync(Duration.ZERO).reconciler((ctx, tools, req) -> reconcile(req)));
      client.types(); // connected: what the connection itself holds is not the cache's
      long baseline = Bench.liveHeap();
      manager.start();
      out.println("started " + member);
      Sharding shards = manager.sharding().orElseThrow();
      BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      String line;
      while ((line = in.readLine()) != null) {
        String[] words = line.split(" ");
        switch (words[0]) {
          case "stats" -> out.println("stats " + shards.members().size() + " " + slots(shards.ranges()) + " "
              + manager.cache().list(DemoTypes.ARTIST).size() + " " + manager.controllers().get(0).running());
          case "pass" -> out.println("pass " + pass(manager, shards));
          case "keys" -> {
            Files.write(Path.of(words[1]), List.copyOf(reconciled));
            out.println("keys " + reconciled.size());
          }
          case "heap" -> out.println("heap " + (Bench.liveHeap() - baseline));
          default -> out.println("unknown " + line);
        }
      }
    }
    return 0;
  }

  private Result reconcile(Request request) throws InterruptedException {
    Thread.sleep(io);
    if (reconciled.add(request.id().getName()) && reconciled.size() >= target) {
      synchronized (passDone) {
        passDone.notifyAll();
      }
    }
    return Result.done();
  }

  /** Reconciles every cached Artist once; returns the count and the nanoseconds it took. */
  private String pass(Manager manager, Sharding shards) throws InterruptedException {
    List<Resource> owned = manager.cache().list(DemoTypes.ARTIST).stream().filter(a -> shards.owns(a.getId())).toList();
    Set<String> names = new java.util.HashSet<>();
    owned.forEach(a -> names.add(a.getId().getName()));
    reconciled.clear();
    target = names.size();
    long started = System.nanoTime();
    for (Resource artist : owned) {
      manager.trigger(CONTROLLER, artist.getId(), "bench pass");
    }
    long reported = System.nanoTime();
    synchronized (passDone) {
      while (!reconciled.containsAll(names)) {
        passDone.wait(100);
        if (System.nanoTime() - reported > 20_000_000_000L) {
          reported = System.nanoTime();
          log.warn("pass stalled: still to reconcile {}; {}",
              names.stream().filter(n -> !reconciled.contains(n)).limit(5).toList(), manager.controllers());
        }
      }
    }
    return owned.size() + " " + (System.nanoTime() - started);
  }

  private static long slots(List<HashRange> ranges) {
    long width = 0;
    for (HashRange r : ranges) {
      width += r.getEnd() - r.getStart();
    }
    return width / (Shards.SPACE / 1024);
  }
}
