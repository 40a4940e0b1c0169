package io.setpoint.storage.raft;

import static io.setpoint.storage.conformance.Fixtures.id;
import static io.setpoint.storage.conformance.Fixtures.resource;
import static io.setpoint.storage.conformance.Fixtures.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.setpoint.api.v1.ID;
import io.setpoint.storage.Consistency;
import io.setpoint.storage.Replication.Member;
import io.setpoint.storage.StorageException;
import io.setpoint.storage.StorageException.Reason;
import io.setpoint.storage.engine.StoreEngine.Limits;
import io.setpoint.testkit.KeyHistory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Membership changes under a compare-and-swap load: three members grow to five through joining
 * members and shrink back to three by removing two founders, the leader among them. The history
 * stays linearizable, and every member left holds the register's last acknowledged value.
 */
class MembershipTest {
  private static final ID REGISTER = id("register");
  private static final Duration CHANGE = Duration.ofSeconds(30);

  @Test
  @Timeout(value = 180, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void threeMembersGrowToFiveAndShrinkToThreeUnderCasLoadWithALinearizableHistory() throws Exception {
    try (TestCluster cluster = TestCluster.start(3, Limits.DEFAULT, TestCluster.FAST)) {
      List<String> serving = new CopyOnWriteArrayList<>(cluster.members().stream().map(RaftBackend::nodeName).toList());
      KeyHistory history = new KeyHistory();
      AtomicBoolean running = new AtomicBoolean(true);
      try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
        List<Future<Integer>> clients = new ArrayList<>();
        for (int c = 0; c < 4; c++) {
          String client = "c" + c;
          clients.add(pool.submit(() -> RegisterClient.run(client, REGISTER, () -> {
            List<String> now = List.copyOf(serving);
            return cluster.member(now.get(ThreadLocalRandom.current().nextInt(now.size())));
          }, history, running)));
        }
        try {
          awaitProgress(history, 40);

          // Grow: each new member starts empty, waits unadded, and is added through a follower.
          for (String suffix : List.of("n4", "n5")) {
            String name = cluster.newName(suffix);
            RaftBackend joining = cluster.startJoining(name);
            assertThat(joining.isMember()).as("%s before it is added", name).isFalse();
            RaftBackend asked = serving.stream().map(cluster::member).filter(b -> !b.isLeader()).findFirst().orElseThrow();
            List<Member> after = asked.addMember(name, cluster.address(name), true, CHANGE);
            assertThat(after).extracting(Member::name).contains(name);
            await().atMost(CHANGE).until(joining::isMember);
            serving.add(name);
            awaitProgress(history, 40);
          }
          assertThat(cluster.awaitLeader().members()).hasSize(5);

          // Shrink: remove the leader (it hands over first) and one more founder, asking a new member.
          RaftBackend asked = cluster.member(serving.get(serving.size() - 1));
          String leader = cluster.awaitLeader().nodeName();
          String founder = serving.stream().filter(n -> !n.equals(leader) && !n.equals(asked.nodeName())).findFirst().orElseThrow();
          for (String removed : List.of(leader, founder)) {
            serving.remove(removed);
            List<Member> after = asked.removeMember(removed, CHANGE);
            assertThat(after).extracting(Member::name).doesNotContain(removed);
            cluster.stopMember(removed);
            awaitProgress(history, 40);
          }
        } finally {
          running.set(false);
        }
        int succeeded = 0;
        for (Future<Integer> f : clients) {
          succeeded += f.get(60, TimeUnit.SECONDS);
        }
        assertThat(succeeded).as("swaps that took effect").isGreaterThan(50);
      }
      assertThat(cluster.awaitLeader().members()).extracting(Member::name).containsExactlyInAnyOrderElementsOf(serving);
      assertThat(history.isLinearizable()).as("history of %d operations", history.ops().size()).isTrue();
      // Every member left, the two added ones included, holds the same last value.
      List<String> finals = serving.stream().map(n -> text(cluster.member(n).read(Consistency.STRONG, REGISTER))).toList();
      assertThat(finals).as("the register on %s", serving).containsOnly(finals.get(0));
    }
  }

  @Test
  void addingAMemberAtAnotherAddressOrRemovingTheLastOneIsRefused() {
    try (TestCluster cluster = TestCluster.start(1, Limits.DEFAULT, TestCluster.FAST)) {
      RaftBackend solo = cluster.awaitLeader();
      String name = solo.nodeName();
      assertThatThrownBy(() -> solo.addMember(name, "127.0.0.1:1", true, CHANGE))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("member " + name + " is at " + cluster.address(name));
      assertThatThrownBy(() -> solo.removeMember(name, CHANGE))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("is the only one");
      assertThatThrownBy(() -> solo.removeMember("nobody", CHANGE))
          .isInstanceOfSatisfying(StorageException.class, e -> assertThat(e.reason()).isEqualTo(Reason.NOT_FOUND));
      // Adding itself again, where it is, changes nothing.
      assertThat(solo.addMember(name, cluster.address(name), false, CHANGE)).extracting(Member::name).containsExactly(name);
    }
  }

  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void aFounderThatLostItsDataIsRefusedUntilItJoinsAgainWhileALateFounderStarts() throws Exception {
    try (TestCluster cluster = TestCluster.start(3, 2, Limits.DEFAULT, TestCluster.FAST)) {
      List<String> names = List.copyOf(cluster.config(cluster.awaitLeader().nodeName()).peers().keySet());
      String late = names.stream().filter(n -> cluster.member(n) == null).findFirst().orElseThrow();
      for (int i = 0; i < 5; i++) {
        cluster.awaitLeader().writeCas(resource(id("before-" + i)));
      }

      // Never reached before, the third founder starts on its new directory and catches up.
      RaftBackend third = cluster.startMember(late);
      await().atMost(CHANGE).ignoreExceptions().untilAsserted(() -> assertThat(third.read(Consistency.EVENTUAL, id("before-4"))).isNotNull());

      // A follower that committed entries loses its data directory, and comes back with -cluster.
      String wiped = cluster.follower().nodeName();
      Path dir = cluster.config(wiped).dataDir();
      cluster.stopMember(wiped);
      deleteRecursively(dir);
      assertThatThrownBy(() -> cluster.startMember(wiped))
          .isInstanceOf(UncheckedIOException.class)
          .hasMessageContaining("Raft member " + wiped + " starts with a new data directory")
          .hasMessageContaining("it lost its data")
          .hasMessageContaining("Start it with -join");
      assertThat(new DataDirectory(cluster.config(wiped)).isNew()).as("the refused start wrote nothing").isTrue();

      // Through -join the cluster removes it and adds it again as new, and it catches up.
      RaftBackend rejoined = cluster.restartJoining(wiped);
      cluster.awaitLeader().addMember(wiped, cluster.address(wiped), true, CHANGE);
      await().atMost(CHANGE).until(rejoined::isMember);
      cluster.awaitLeader().writeCas(resource(id("after")));
      await().atMost(CHANGE).ignoreExceptions().untilAsserted(() -> {
        assertThat(rejoined.read(Consistency.EVENTUAL, id("before-0"))).isNotNull();
        assertThat(rejoined.read(Consistency.EVENTUAL, id("after"))).isNotNull();
      });
    }
  }

  private static void deleteRecursively(Path dir) throws IOException {
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }

  private static void awaitProgress(KeyHistory history, int more) {
    int target = history.ops().size() + more;
    await().atMost(Duration.ofSeconds(30)).until(() -> history.ops().size() >= target);
  }
}
