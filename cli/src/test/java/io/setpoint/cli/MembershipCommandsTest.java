package io.setpoint.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.Any;
import io.setpoint.api.Ids;
import io.setpoint.api.Tenancies;
import io.setpoint.api.operator.v1.Peer;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.client.SetpointClient;
import io.setpoint.demo.DemoTypes;
import io.setpoint.demo.v2.Artist;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Membership through the agent and the CLI: three agents grow to five with {@code agent -join}
 * and shrink back to three with {@code operator raft remove-peer} (the leader first) while clients
 * compare-and-swap one register on whichever members serve; then a member whose data directory
 * was wiped is added again through {@code -join} and catches up. The register's history is
 * linearizable, and every member ends with the last acknowledged value.
 */
class MembershipCommandsTest {
  private static final Duration WAIT = Duration.ofSeconds(90);
  /**
   * Operations each phase waits for, so that the swaps counted at the end show the load kept
   * working through every change, however quickly agents now start and stop.
   */
  private static final int PHASE_OPERATIONS = 60;

  @TempDir Path dir;
  private final List<CliRun> agents = new ArrayList<>(java.util.Collections.nCopies(5, null));
  private final Map<Integer, SetpointClient> clients = new ConcurrentHashMap<>();

  @AfterEach
  void stopAll() throws InterruptedException {
    clients.values().forEach(SetpointClient::close);
    ClusterArgs.stopAll(agents.stream().filter(a -> a != null).toList());
  }

  @Test
  @Timeout(value = 300, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void threeAgentsGrowToFiveWithJoinAndShrinkToThreeWithRemovePeerUnderCasLoad() throws Exception {
    ClusterArgs cluster = new ClusterArgs(dir, 5, 3);
    int[] api = cluster.apiPorts();
    for (int i = 0; i < 3; i++) {
      agents.set(i, CliRun.start(cluster.member(i, "-demo-types", "-no-demo-controllers")));
    }
    List<Integer> serving = new CopyOnWriteArrayList<>();
    for (int i = 0; i < 3; i++) {
      ClusterArgs.awaitReady(api[i], WAIT);
      serving.add(i);
    }
    RegisterLoad load = new RegisterLoad();
    load.create(client(api[0]));
    AtomicBoolean running = new AtomicBoolean(true);
    try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
      List<Future<Integer>> work = new ArrayList<>();
      for (int c = 0; c < 3; c++) {
        String client = "c" + c;
        work.add(pool.submit(() -> load.run(client, () -> anyServing(api, serving), running)));
      }
      try {
        load.awaitProgress(PHASE_OPERATIONS);
        // Grow to five: each new agent asks member 1 to add it.
        for (int i = 3; i < 5; i++) {
          agents.set(i, CliRun.start(cluster.joining(i, api[1], "-demo-types", "-no-demo-controllers")));
          ClusterArgs.awaitReady(api[i], WAIT);
          serving.add(i);
          load.awaitProgress(PHASE_OPERATIONS);
        }
        assertThat(peerNames(api[0])).containsExactlyInAnyOrder(
            cluster.name(0), cluster.name(1), cluster.name(2), cluster.name(3), cluster.name(4));

        // Shrink to three: the leader first (it hands over), then another founder; asked through member 4.
        for (int round = 0; round < 2; round++) {
          String leader = leaderName(api[4]);
          int removed = round == 0 ? indexOf(cluster, leader)
              : Stream.of(0, 1, 2).filter(serving::contains).findFirst().orElseThrow();
          serving.remove(Integer.valueOf(removed));
          CliRun remove = CliRun.run("operator", "raft", "remove-peer", "-node", cluster.name(removed),
              "-address", "127.0.0.1:" + api[4]);
          assertThat(remove.code()).as(remove.toString()).isZero();
          assertThat(remove.out()).contains("removed " + cluster.name(removed)).doesNotContain(cluster.name(removed) + " ");
          agents.get(removed).interruptAndJoin();
          load.awaitProgress(PHASE_OPERATIONS);
        }
        assertThat(peerNames(api[4])).containsExactlyInAnyOrderElementsOf(serving.stream().map(cluster::name).toList());

        // A member that lost its data directory comes back through -join, as new.
        int wiped = 3;
        serving.remove(Integer.valueOf(wiped));
        agents.get(wiped).interruptAndJoin();
        deleteTree(cluster.dataDir(wiped));
        load.awaitProgress(PHASE_OPERATIONS);
        agents.set(wiped, CliRun.start(cluster.joining(wiped, api[4], "-demo-types", "-no-demo-controllers")));
        ClusterArgs.awaitReady(api[wiped], WAIT);
        serving.add(wiped);
        load.awaitProgress(PHASE_OPERATIONS);
      } finally {
        running.set(false);
      }
      int succeeded = 0;
      for (Future<Integer> f : work) {
        succeeded += f.get(60, TimeUnit.SECONDS);
      }
      assertThat(succeeded).as("swaps that took effect").isGreaterThan(100);
    }
    assertThat(peerNames(api[4])).containsExactlyInAnyOrderElementsOf(serving.stream().map(cluster::name).toList());
    assertThat(load.history.isLinearizable()).as("history of %d operations", load.history.ops().size()).isTrue();
    List<String> finals = new ArrayList<>();
    for (int i : serving) {
      finals.add(RegisterLoad.read(client(api[i])));
    }
    assertThat(finals).as("the register on members %s", serving).containsOnly(finals.get(0));
  }

  /**
   * Member 1 loses its data directory while member 2 lags (it was down for the last writes), and
   * the whole cluster restarts: member 1 comes back through {@code -join}, so it cannot vote member
   * 2, which lacks acknowledged writes, into leading. Member 0 leads within 10 s of the restart,
   * and every acknowledged write is on all three members afterwards. Wiped again and started with
   * {@code -cluster} while the others run, member 1 is refused, the message saying to use {@code
   * -join}.
   */
  @Test
  @Timeout(value = 240, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void aWipedMemberAndALaggingOneElectTheMemberWithEveryWriteAndLoseNothing() throws Exception {
    ClusterArgs cluster = new ClusterArgs(dir, 3);
    int[] api = cluster.apiPorts();
    for (int i = 0; i < 3; i++) {
      agents.set(i, CliRun.start(cluster.member(i, "-demo-types", "-no-demo-controllers")));
    }
    for (int i = 0; i < 3; i++) {
      ClusterArgs.awaitReady(api[i], WAIT);
    }
    List<String> acknowledged = new ArrayList<>();
    writeArtists(api[0], 0, 20, acknowledged);
    agents.get(2).interruptAndJoin(); // member 2 lags from here on
    writeArtists(api[0], 20, 40, acknowledged);
    for (int i : new int[] {1, 0}) {
      agents.get(i).interruptAndJoin();
    }
    clients.values().forEach(SetpointClient::close);
    clients.clear();
    deleteTree(cluster.dataDir(1));

    long restarted = System.nanoTime();
    agents.set(0, CliRun.start(cluster.member(0, "-demo-types", "-no-demo-controllers")));
    agents.set(2, CliRun.start(cluster.member(2, "-demo-types", "-no-demo-controllers")));
    agents.set(1, CliRun.start(cluster.joining(1, api[0], "-demo-types", "-no-demo-controllers")));
    ClusterArgs.awaitReady(api[0], Duration.ofSeconds(10));
    System.out.printf("member 0 ready, a leader known, %d ms after the restart%n", (System.nanoTime() - restarted) / 1_000_000);
    assertThat(leaderName(api[0])).as("the member holding every write leads").isEqualTo(cluster.name(0));
    for (int i = 1; i < 3; i++) {
      ClusterArgs.awaitReady(api[i], WAIT);
    }
    assertThat(peerNames(api[1])).containsExactlyInAnyOrder(cluster.name(0), cluster.name(1), cluster.name(2));
    for (int i = 0; i < 3; i++) {
      SetpointClient member = client(api[i]);
      for (String name : acknowledged) {
        assertThat(member.readConsistent(artistId(name)).getId().getName()).as("on member %d", i).isEqualTo(name);
      }
    }

    // Wiped again and started with -cluster while the others run, it is refused: they remember it.
    agents.get(1).interruptAndJoin();
    deleteTree(cluster.dataDir(1));
    CliRun refused = CliRun.run(cluster.member(1, "-demo-types", "-no-demo-controllers"));
    assertThat(refused.code()).as(refused.toString()).isNotZero();
    assertThat(refused.err()).contains("Raft member " + cluster.name(1) + " starts with a new data directory")
        .contains("it lost its data").contains("Start it with -join");
  }

  /** Writes artists {@code w<from>} up to {@code w<to>} (excluded) one after another, and notes each acknowledged. */
  private void writeArtists(int port, int from, int to, List<String> acknowledged) {
    for (int i = from; i < to; i++) {
      String name = String.format("w%03d", i);
      client(port).write(Resource.newBuilder().setId(artistId(name))
          .setData(Any.pack(Artist.newBuilder().setName(name).build())).build());
      acknowledged.add(name);
    }
  }

  private static ID artistId(String name) {
    return Ids.of(DemoTypes.ARTIST, Tenancies.of("default", "default"), name);
  }

  /** The client of a random member among those serving. */
  private SetpointClient anyServing(int[] api, List<Integer> serving) {
    List<Integer> now = List.copyOf(serving);
    return client(api[now.get(ThreadLocalRandom.current().nextInt(now.size()))]);
  }

  private SetpointClient client(int port) {
    return clients.computeIfAbsent(port, p -> SetpointClient.builder().address("127.0.0.1:" + p)
        .deadline(Duration.ofSeconds(20)).build());
  }

  private List<String> peerNames(int port) {
    return client(port).raftPeers().getPeersList().stream().map(Peer::getName).toList();
  }

  private String leaderName(int port) {
    return await().atMost(WAIT).ignoreExceptions().until(
        () -> client(port).raftPeers().getPeersList().stream().filter(Peer::getLeader).map(Peer::getName).findFirst(),
        java.util.Optional::isPresent).orElseThrow();
  }

  private static int indexOf(ClusterArgs cluster, String name) {
    for (int i = 0; i < 5; i++) {
      if (cluster.name(i).equals(name)) {
        return i;
      }
    }
    throw new AssertionError("no member " + name);
  }

  private static void deleteTree(Path root) throws IOException {
    try (Stream<Path> files = Files.walk(root)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }
}
