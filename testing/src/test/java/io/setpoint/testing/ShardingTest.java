package io.setpoint.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.Any;
import io.grpc.Status.Code;
import io.setpoint.api.Ids;
import io.setpoint.api.Statuses.Conditions;
import io.setpoint.api.Tenancies;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Status;
import io.setpoint.client.SetpointClient;
import io.setpoint.client.SetpointException;
import io.setpoint.controller.Controller;
import io.setpoint.controller.Controller.Placement;
import io.setpoint.controller.Manager;
import io.setpoint.controller.Result;
import io.setpoint.controller.Sharding;
import io.setpoint.controller.loop.Loop;
import io.setpoint.controller.time.ManualTicker;
import io.setpoint.controller.time.Ticker;
import io.setpoint.demo.DemoTypes;
import io.setpoint.demo.v1.RecordLabel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Managers in one JVM, as members of one shard group, split a SHARDED controller's record labels:
 * each label is reconciled by the one member that owns it, never by two at once, the caches hold
 * only their share, and members joining, leaving and being evicted move only their part.
 */
class ShardingTest {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final Duration LEASE = Duration.ofMillis(1500);
  private static final Duration RENEW = Duration.ofMillis(1000);
  private static final Duration RETRY = Duration.ofMillis(100);
  private static final int LABELS = 120;
  private static final String STATUS_KEY = "sharding.test/seen";

  @RegisterExtension
  final SetpointExtension setpoint = SetpointExtension.builder().agent(agent -> agent.types(DemoTypes::register)).build();

  private final Map<String, Manager> managers = new ConcurrentHashMap<>();
  private final List<SetpointClient> clients = new ArrayList<>();
  /** Who reconciled each label, by label name. */
  private final Map<String, Set<String>> reconciledBy = new ConcurrentHashMap<>();
  private final Map<String, AtomicInteger> inFlight = new ConcurrentHashMap<>();
  private final AtomicInteger overlaps = new AtomicInteger();
  /** The client each member's controller was handed last. */
  private final Map<String, SetpointClient> writers = new ConcurrentHashMap<>();
  private final List<ID> labels = new ArrayList<>();

  @BeforeEach
  void createLabels() {
    for (int i = 0; i < LABELS; i++) {
      labels.add(setpoint.client().write(Resource.newBuilder()
          .setId(Ids.of(DemoTypes.RECORD_LABEL, Tenancies.partition("default"), "label-" + i))
          .setData(Any.pack(RecordLabel.newBuilder().setName("Label " + i).build())).build()).getId());
    }
  }

  @AfterEach
  void close() {
    managers.values().parallelStream().forEach(Manager::close);
    clients.forEach(SetpointClient::close);
  }

  @Test
  void membersSplitTheKeysAndAJoinerTakesAboutAThirdWhileNoKeyRunsInTwoPlaces() {
    Manager a = start("a", Ticker.system(), false);
    Manager b = start("b", Ticker.system(), false);
    awaitSettled(List.of("a", "b"));
    Map<String, String> owners = owners();
    awaitEachReconciledOnlyByItsOwner(owners);
    assertThat(a.cache().list(DemoTypes.RECORD_LABEL).size() + b.cache().list(DemoTypes.RECORD_LABEL).size())
        .as("each member caches only its own labels").isEqualTo(LABELS);
    assertThat(a.cache().list(DemoTypes.RECORD_LABEL).size()).isBetween(1, LABELS - 1);

    start("c", Ticker.system(), false);
    awaitSettled(List.of("a", "b", "c"));
    Map<String, String> after = owners();
    long toC = after.values().stream().filter("c"::equals).count();
    assertThat(toC).as("labels the joiner took").isBetween((long) LABELS / 5, (long) LABELS / 2);
    after.forEach((label, owner) -> {
      if (!owner.equals("c")) {
        assertThat(owners.get(label)).as("%s stays where it was unless it went to c", label).isEqualTo(owner);
      }
    });
    awaitEachReconciledOnlyByItsOwner(after);

    b.close();
    managers.remove("b");
    awaitSettled(List.of("a", "c"));
    awaitEachReconciledOnlyByItsOwner(owners());
    assertThat(overlaps.get()).as("reconciles of one label in two members at once").isZero();
  }

  @Test
  void aPausedMemberIsEvictedItsWritesAreRefusedAndItRejoinsWhenItResumes() {
    ManualTicker pausable = new ManualTicker();
    Manager a = start("a", pausable, true);
    await().atMost(WAIT).until(() -> {
      pausable.advance(RETRY);
      return covers(List.of(a));
    });
    ID label = labels.get(0);
    setpoint.awaitResource(label, r -> seenBy(r, "a"));
    SetpointClient deposed = writers.get("a");

    // A's time stands still, so it renews nothing; B evicts it after a lease duration of B's time.
    Manager b = start("b", Ticker.system(), true);
    await().atMost(WAIT).until(() -> covers(List.of(b)));
    assertThat(a.sharding().orElseThrow().owns(label)).as("A, paused, still believes it owns the label").isTrue();
    setpoint.awaitResource(label, r -> seenBy(r, "b"));
    assertThatThrownBy(() -> deposed.writeStatus(label, STATUS_KEY, seen("a")))
        .isInstanceOfSatisfying(SetpointException.class, e -> {
          assertThat(e.code()).isEqualTo(Code.FAILED_PRECONDITION);
          assertThat(e.description()).contains("fenced", "lease labels-a");
        });

    // A resumes: its renew finds itself evicted, it stops, joins again at a new epoch and gets a share.
    await().atMost(WAIT).until(() -> {
      pausable.advance(RETRY);
      return a.sharding().orElseThrow().fence().map(f -> f.getEpoch() == 2).orElse(false)
          && a.sharding().orElseThrow().members().equals(List.of("a", "b"))
          && !a.sharding().orElseThrow().ranges().isEmpty() && covers(List.of(a, b));
    });
  }

  @Test
  void aQuietMembersSlotsAreCachedBeforeItIsEvictedAndLetGoWhenItRenews() {
    ManualTicker aTime = new ManualTicker();
    ManualTicker bTime = new ManualTicker();
    Manager a = start("a", aTime, false);
    Manager b = start("b", bTime, false);
    await().atMost(WAIT).until(() -> {
      aTime.advance(RETRY);
      bTime.advance(RETRY);
      return b.sharding().orElseThrow().members().equals(List.of("a", "b")) && covers(List.of(a, b))
          && cached(b) == owned(b);
    });
    int share = owned(b);
    assertThat(share).isBetween(1, LABELS - 1);

    // A's time stands still, so it renews nothing. B's time runs to just short of a lease: past half
    // a lease B fills its cache with the labels it would gain, but it evicts nobody and opens nothing.
    AtomicInteger quietFor = new AtomicInteger();
    await().atMost(WAIT).until(() -> {
      if (quietFor.get() < LEASE.minus(RETRY).toMillis()) {
        bTime.advance(RETRY.dividedBy(4));
        quietFor.addAndGet((int) RETRY.dividedBy(4).toMillis());
      }
      return cached(b) == LABELS;
    });
    assertThat(b.sharding().orElseThrow().members()).containsExactly("a", "b");
    assertThat(owned(b)).as("labels B owns while A is quiet").isEqualTo(share);
    assertThat(covers(List.of(a, b))).isTrue();

    // A renews again: B lets A's labels go.
    await().atMost(WAIT).until(() -> {
      aTime.advance(RETRY);
      bTime.advance(RETRY.dividedBy(4));
      return cached(b) == share;
    });
    assertThat(b.sharding().orElseThrow().members()).containsExactly("a", "b");
    assertThat(owned(b)).isEqualTo(share);
  }

  @Test
  void aLoopSplitsItsKeysThroughTheGroupsLocker() {
    Map<String, String> inventory = new ConcurrentHashMap<>();
    for (int i = 0; i < 40; i++) {
      inventory.put("sku-" + i, "item " + i);
    }
    for (String name : List.of("a", "b")) {
      Manager manager = start(name, Ticker.system(), false);
      manager.register(Loop.named("inventory")
          .listerWatcher(() -> inventory.keySet())
          .store(key -> Optional.ofNullable(inventory.get(key)))
          .handler((ctx, item) -> {
            reconciledBy.computeIfAbsent(ctx.key(), k -> ConcurrentHashMap.newKeySet()).add(name);
            return Result.done();
          })
          .locker(manager.sharding().orElseThrow().locker(Object::toString))
          .resync(Duration.ofMillis(200))
          .build());
    }
    awaitSettled(List.of("a", "b"));
    Map<String, String> owners = new HashMap<>();
    for (String key : inventory.keySet()) {
      managers.forEach((name, m) -> {
        if (m.sharding().orElseThrow().owns(key)) {
          owners.merge(key, name, (x, y) -> x + "+" + y);
        }
      });
    }
    assertThat(owners).hasSize(inventory.size()).doesNotContainValue("a+b").doesNotContainValue("b+a");
    assertThat(owners.values()).contains("a", "b");
    labels.forEach(id -> owners.put(id.getName(), ownerOf(id)));
    awaitEachReconciledOnlyByItsOwner(owners);
  }

  private String ownerOf(ID id) {
    return managers.entrySet().stream().filter(e -> e.getValue().sharding().orElseThrow().owns(id))
        .map(Map.Entry::getKey).findFirst().orElseThrow();
  }

  /** Starts member {@code name}; its controller writes a status with its fenced client when {@code writes}. */
  private Manager start(String name, Ticker ticker, boolean writes) {
    SetpointClient client = SetpointClient.connect("127.0.0.1:" + setpoint.agent().port());
    clients.add(client);
    Manager manager = Manager.builder().client(client).ticker(ticker)
        .sharding(Sharding.named("labels").member(name).leaseDuration(LEASE).renewDeadline(RENEW).retryPeriod(RETRY))
        .build();
    manager.register(Controller.forType(DemoTypes.RECORD_LABEL).named("labels").placement(Placement.SHARDED)
        .concurrency(4).reconciler((ctx, tools, req) -> {
          String key = req.id().getName();
          if (inFlight.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet() > 1) {
            overlaps.incrementAndGet();
          }
          try {
            reconciledBy.computeIfAbsent(key, k -> ConcurrentHashMap.newKeySet()).add(name);
            writers.put(name, tools.client());
            if (writes) {
              Resource current = tools.cache().get(req.id()).orElse(null);
              if (current != null) {
                tools.client().writeStatus(current.getId(), STATUS_KEY, seen(name));
              }
              return Result.done();
            }
            return Result.requeueAfter(Duration.ofMillis(300));
          } finally {
            inFlight.get(key).decrementAndGet();
          }
        }));
    manager.start();
    managers.put(name, manager);
    return manager;
  }

  /** Waits until exactly {@code members} are in the group, all agree, and every label has one owner. */
  private void awaitSettled(List<String> members) {
    await().atMost(WAIT).until(() -> {
      List<Manager> ms = members.stream().map(managers::get).toList();
      return ms.stream().allMatch(m -> m.sharding().orElseThrow().members().equals(members)) && covers(ms);
    });
  }

  /** Whether every label is owned by exactly one of {@code members}. */
  private boolean covers(List<Manager> members) {
    for (ID label : labels) {
      if (members.stream().filter(m -> m.sharding().orElseThrow().owns(label)).count() != 1) {
        return false;
      }
    }
    return true;
  }

  private static int cached(Manager member) {
    return member.cache().list(DemoTypes.RECORD_LABEL).size();
  }

  private int owned(Manager member) {
    return (int) labels.stream().filter(member.sharding().orElseThrow()::owns).count();
  }

  private Map<String, String> owners() {
    Map<String, String> owners = new HashMap<>();
    for (ID label : labels) {
      managers.forEach((name, m) -> {
        if (m.sharding().orElseThrow().owns(label)) {
          owners.put(label.getName(), name);
        }
      });
    }
    return owners;
  }

  /** Forgets who reconciled what, then waits until every label was reconciled again, by its owner only. */
  private void awaitEachReconciledOnlyByItsOwner(Map<String, String> owners) {
    reconciledBy.clear();
    await().atMost(WAIT).until(() -> reconciledBy.keySet().containsAll(owners.keySet()));
    Map<String, Set<String>> seen = Map.copyOf(reconciledBy);
    owners.forEach((label, owner) ->
        assertThat(seen.get(label)).as("who reconciled %s", label).containsExactly(owner));
    assertThat(seen.keySet().stream().filter(k -> !owners.containsKey(k)).collect(Collectors.toSet())).isEmpty();
  }

  private static boolean seenBy(Resource r, String member) {
    Status status = r.getStatusMap().get(STATUS_KEY);
    return status != null && status.getConditions(0).getMessage().equals(member);
  }

  private static Status seen(String member) {
    return Status.newBuilder().addConditions(Conditions.isTrue("Seen", "Reconciled", member)).build();
  }
}
