package io.setpoint.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.Any;
import io.setpoint.api.Ids;
import io.setpoint.api.Tenancies;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.client.SetpointClient;
import io.setpoint.controller.Controller;
import io.setpoint.controller.Controller.Placement;
import io.setpoint.controller.Result;
import io.setpoint.demo.DemoTypes;
import io.setpoint.demo.v1.RecordLabel;
import io.setpoint.server.Agent;
import io.setpoint.storage.raft.RaftConfig;
import io.setpoint.testkit.FreePorts;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Where the agents of a three-member Raft cluster run their controllers: an EACH_SERVER controller
 * on every member, a SINGLETON one only on the Raft leader; when the leader's agent stops, the
 * SINGLETON controller runs on the new leader, and the reconciles of the two never overlap.
 */
class PlacementTest {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final AtomicInteger CLUSTERS = new AtomicInteger();

  /** One SINGLETON reconcile: which member ran it, and when it began and ended (this JVM's nanoTime). */
  private record Interval(String member, long began, long ended) {
    boolean overlaps(Interval other) {
      return began <= other.ended && other.began <= ended;
    }
  }

  private final List<Interval> singleton = new CopyOnWriteArrayList<>();
  private final Set<String> eachServer = ConcurrentHashMap.newKeySet();
  private final Map<String, Agent> agents = new LinkedHashMap<>();
  private final List<Path> dirs = new ArrayList<>();

  @AfterEach
  void stopCluster() throws Exception {
    agents.values().parallelStream().forEach(Agent::close);
    for (Path dir : dirs) {
      try (var files = Files.walk(dir)) {
        files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  @Test
  void eachServerRunsOnEveryMemberAndSingletonFollowsTheLeaderWithoutOverlap() throws Exception {
    startCluster(3);
    SetpointClient client = SetpointClient.connect("127.0.0.1:" + agents.values().iterator().next().port());
    try {
      ID label = client.write(Resource.newBuilder()
          .setId(Ids.of(DemoTypes.RECORD_LABEL, Tenancies.partition("default"), "tick"))
          .setData(Any.pack(RecordLabel.newBuilder().setName("Tick").build())).build()).getId();

      await().atMost(WAIT).until(() -> eachServer.containsAll(agents.keySet()));
      String leader = awaitSingletonOn(null);
      assertThat(agents.get(leader).manager().isLeader()).isTrue();
      assertThat(agents.entrySet().stream().filter(e -> !e.getKey().equals(leader))
          .noneMatch(e -> e.getValue().manager().isLeader())).isTrue();

      // The leader's agent stops: the SINGLETON controller moves to whichever member leads next.
      agents.remove(leader).close();
      String next = awaitSingletonOn(leader);
      assertThat(next).isNotEqualTo(leader);
      assertThat(label.getName()).isEqualTo("tick");

      for (Interval a : singleton) {
        for (Interval b : singleton) {
          if (!a.member().equals(b.member())) {
            assertThat(a.overlaps(b)).as("%s overlaps %s", a, b).isFalse();
          }
        }
      }
    } finally {
      client.close();
    }
  }

  /** Waits until a member other than {@code not} has run five SINGLETON reconciles, and names it. */
  private String awaitSingletonOn(String not) {
    String[] found = new String[1];
    await().atMost(WAIT).until(() -> {
      Map<String, Long> counts = new LinkedHashMap<>();
      for (Interval i : singleton) {
        if (!i.member().equals(not)) {
          counts.merge(i.member(), 1L, Long::sum);
        }
      }
      return counts.entrySet().stream().filter(e -> e.getValue() >= 5).findFirst()
          .map(e -> found[0] = e.getKey()).isPresent();
    });
    return found[0];
  }

  private void startCluster(int size) throws Exception {
    String prefix = "p" + CLUSTERS.incrementAndGet() + "-";
    List<Integer> raftPorts = FreePorts.loopback(size);
    Map<String, String> peers = new LinkedHashMap<>();
    for (int i = 0; i < size; i++) {
      peers.put(prefix + i, "127.0.0.1:" + raftPorts.get(i));
    }
    List<CompletableFuture<Agent>> starting = new ArrayList<>();
    for (int i = 0; i < size; i++) {
      String member = prefix + i;
      Path dir = Files.createTempDirectory("placement-" + member);
      dirs.add(dir);
      int raftPort = raftPorts.get(i);
      // Members wait for each other's votes: start them together.
      starting.add(CompletableFuture.supplyAsync(() -> Agent.builder().port(0).acls(false)
          .types(DemoTypes::register)
          .raft(RaftConfig.of(member, dir, raftPort, peers))
          .controllers(manager -> {
            manager.register(singletonController(member));
            manager.register(eachServerController(member));
          })
          .start()));
    }
    for (int i = 0; i < size; i++) {
      agents.put(prefix + i, starting.get(i).get());
    }
  }

  private Controller singletonController(String member) {
    return Controller.forType(DemoTypes.RECORD_LABEL).named("singleton").placement(Placement.SINGLETON)
        .reconciler((ctx, tools, req) -> {
          long began = System.nanoTime();
          for (int i = 0; i < 3; i++) {
            tools.client().readConsistent(req.id()); // the reconcile's work
          }
          singleton.add(new Interval(member, began, System.nanoTime()));
          return Result.requeueAfter(Duration.ofMillis(20));
        });
  }

  private Controller eachServerController(String member) {
    return Controller.forType(DemoTypes.RECORD_LABEL).named("each-server").placement(Placement.EACH_SERVER)
        .reconciler((ctx, tools, req) -> {
          eachServer.add(member);
          return Result.done();
        });
  }
}
