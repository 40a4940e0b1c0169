package io.setpoint.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.setpoint.client.SetpointClient;
import io.setpoint.controller.LoopRunner;
import io.setpoint.controller.Result;
import io.setpoint.controller.loop.Locker;
import io.setpoint.controller.loop.Loop;
import io.setpoint.controller.time.ManualTicker;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Three instances of one loop against one server, sharing keys through {@link Locker#lease}: each
 * key is handled by one instance only, never by two at once, and when an instance fails (its
 * connection dies, its leases stay behind) the others take its keys over once its heartbeat
 * expires. Real time with a short lease (2 s) and Awaitility; no sleeps.
 */
class LeaseLockerTest {
  private static final Duration LEASE = Duration.ofSeconds(2);
  private static final Duration WAIT = Duration.ofSeconds(30);

  @RegisterExtension
  final SetpointExtension setpoint = SetpointExtension.builder().build();

  private final Map<String, String> inventory = new ConcurrentHashMap<>();
  /** key -> the instance handling it right now; a second one is a violation. */
  private final Map<String, String> handling = new ConcurrentHashMap<>();
  private final List<String> violations = new CopyOnWriteArrayList<>();
  /** Every handling, in order: instance and key. */
  private final List<Map.Entry<String, String>> handled = new CopyOnWriteArrayList<>();
  private final List<SetpointClient> clients = new ArrayList<>();
  private final List<LoopRunner> runners = new ArrayList<>();

  @AfterEach
  void stopAll() {
    runners.forEach(LoopRunner::close);
    clients.forEach(SetpointClient::close);
  }

  private LoopRunner instance(String name) {
    return instance(name, LEASE);
  }

  private LoopRunner instance(String name, Duration lease) {
    SetpointClient client = SetpointClient.connect("127.0.0.1:" + setpoint.agent().port());
    clients.add(client);
    Loop<String, String> loop = Loop.named("inventory-sync")
        .listerWatcher(() -> inventory.keySet())
        .store(key -> Optional.ofNullable(inventory.get(key)))
        .handler((ctx, item) -> {
          String other = handling.putIfAbsent(ctx.key(), name);
          if (other != null) {
            violations.add(ctx.key() + " handled by " + name + " while " + other + " handled it");
          }
          try {
            handled.add(Map.entry(name, ctx.key()));
            return Result.done();
          } finally {
            handling.remove(ctx.key(), name);
          }
        })
        .locker(Locker.<String>lease(client, "inventory-sync").holder(name).duration(lease).build())
        .resync(Duration.ofMillis(200))
        .concurrency(2)
        .build();
    LoopRunner runner = LoopRunner.builder(loop).drainTimeout(Duration.ofSeconds(5)).start();
    runners.add(runner);
    return runner;
  }

  /** key -> the instances that handled it, among handlings from {@code from} on. */
  private Map<String, Set<String>> handlers(int from) {
    // A copy first: workers append while this reads, and a live sub-list would then throw.
    List<Map.Entry<String, String>> snapshot = List.copyOf(handled);
    return snapshot.subList(from, snapshot.size()).stream().collect(Collectors.groupingBy(
        Map.Entry::getValue, TreeMap::new, Collectors.mapping(Map.Entry::getKey, Collectors.toSet())));
  }

  @Test
  void threeInstancesSplitTheKeysAndAFailedOnesKeysMoveToTheOthersAfterItsLeaseExpires() {
    IntStream.range(0, 12).forEach(i -> inventory.put("sku-" + i, "item " + i));
    List<String> names = List.of("alpha", "bravo", "charlie");
    names.forEach(this::instance);

    // Every key handled, several resyncs over, and each by exactly one instance.
    await().atMost(WAIT).until(() -> handlers(0).size() == 12
        && handled.stream().filter(e -> e.getValue().equals("sku-0")).count() >= 3);
    Map<String, Set<String>> before = handlers(0);
    assertThat(before.values()).allSatisfy(instances -> assertThat(instances).hasSize(1));
    Map<String, String> owner = before.entrySet().stream()
        .collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().iterator().next()));

    // The instance with the most keys fails: its connection dies first, so it cannot release.
    String failed = names.stream()
        .max(Comparator.comparing(n -> owner.values().stream().filter(n::equals).count())).orElseThrow();
    int index = names.indexOf(failed);
    clients.get(index).close();
    runners.get(index).close();
    int mark = handled.size();
    Set<String> orphaned = owner.entrySet().stream()
        .filter(e -> e.getValue().equals(failed)).map(Map.Entry::getKey).collect(Collectors.toSet());
    assertThat(orphaned).isNotEmpty();

    // After its heartbeat expires, the survivors take its keys over.
    await().atMost(WAIT).until(() -> handlers(mark).keySet().containsAll(orphaned));
    Map<String, Set<String>> after = handlers(mark);
    for (String key : orphaned) {
      assertThat(after.get(key)).doesNotContain(failed).hasSize(1);
    }
    // The survivors' own keys stayed where they were.
    owner.forEach((key, instance) -> {
      if (!instance.equals(failed) && after.containsKey(key)) {
        assertThat(after.get(key)).containsExactly(instance);
      }
    });
    assertThat(violations).isEmpty();
  }

  @Test
  void aHolderWhoseTickerStandsStillRenewsNothingAndLosesItsKeyOnceItsHeartbeatExpires() throws Exception {
    // The instances' shared date, on a ticker of its own: each instance's timers run on its own ticker.
    ManualTicker date = new ManualTicker();
    Clock clock = date.clock();
    ManualTicker aTime = new ManualTicker();
    ManualTicker bTime = new ManualTicker();
    SetpointClient client = SetpointClient.connect("127.0.0.1:" + setpoint.agent().port());
    clients.add(client);
    Locker<String> a = Locker.<String>lease(client, "ticking").holder("a").duration(LEASE)
        .clock(clock).ticker(aTime).build();
    Locker<String> b = Locker.<String>lease(client, "ticking").holder("b").duration(LEASE)
        .clock(clock).ticker(bTime).build();
    try (a; b) {
      assertThat(a.tryAcquire("sku-1")).isTrue();
      assertThat(b.tryAcquire("sku-2")).isTrue();
      assertThat(b.tryAcquire("sku-1")).as("held by a, whose heartbeat is live").isFalse();

      // A lease later on the clock, both tickers run a renew period: both renew, and A keeps its key.
      date.advance(LEASE);
      aTime.advance(LEASE.dividedBy(3));
      bTime.advance(LEASE.dividedBy(3));
      await().atMost(WAIT).until(() -> a.tryAcquire("sku-1") && b.tryAcquire("sku-2"));
      assertThat(b.tryAcquire("sku-1")).as("held by a, renewed on its ticker").isFalse();

      // Another lease later, only B's ticker runs: A renewed nothing, so B takes its key over.
      date.advance(LEASE.plusMillis(1));
      bTime.advance(LEASE.dividedBy(3));
      await().atMost(WAIT).until(() -> b.tryAcquire("sku-1"));
      assertThat(a.tryAcquire("sku-1")).as("a, not renewed for a lease, keeps its hands off").isFalse();
    }
  }

  @Test
  void aStoppedInstanceHandsItsKeysOverWithoutWaitingForExpiry() {
    IntStream.range(0, 6).forEach(i -> inventory.put("sku-" + i, "item " + i));
    // Leases far longer than the wait: only a release can move the keys in time.
    Duration longLease = Duration.ofMinutes(2);
    LoopRunner first = instance("first", longLease);
    await().atMost(WAIT).until(() -> handlers(0).size() == 6);
    instance("second", longLease);

    first.close(); // graceful: deletes its key leases and expires its heartbeat
    int mark = handled.size();
    await().atMost(WAIT).until(() -> handlers(mark).keySet().size() == 6
        && handlers(mark).values().stream().allMatch(set -> set.equals(Set.of("second"))));
    assertThat(violations).isEmpty();
  }
}
