package io.setpoint.storage.raft;

import static io.setpoint.storage.conformance.Fixtures.id;
import static io.setpoint.storage.conformance.Fixtures.resource;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.setpoint.storage.Health;
import io.setpoint.storage.engine.StoreEngine.Limits;
import io.setpoint.storage.raft.v1.Batch;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link RaftBackend#health()} of real members tells whether they can commit and apply: a leader
 * whose followers are stopped, with a write it cannot commit, a follower whose leader and other
 * follower are stopped, and a member whose applying is wedged, each fail within 2 s with a reason,
 * and are healthy again once the members are back or applying goes on.
 */
@Timeout(120)
class MemberReadinessTest {
  @TempDir Path dir;

  /** What a leader without a majority may say: it first misses its followers, then may step down. */
  private static final List<String> LEADER_ALONE = List.of("heard from only 1 of its 3 members", "cannot commit",
      "no Raft leader known");
  /** What a follower without a leader may say: it first misses the leader, then starts an election. */
  private static final List<String> FOLLOWER_ALONE = List.of("no word from the Raft leader", "no Raft leader known");

  @Test
  void aLeaderThatCannotCommitFailsAndRecovers() {
    try (TestCluster cluster = healthyCluster()) {
      RaftBackend leader = cluster.awaitLeader();
      List<String> followers = othersThan(cluster, leader);

      followers.forEach(cluster::stopMember);
      // Uncommitted: it waits in the leader's log while nobody acknowledges it.
      CompletableFuture<?> pending = CompletableFuture.runAsync(() -> leader.writeCas(resource(id("pending"))));
      awaitFailing(leader, LEADER_ALONE);

      followers.forEach(cluster::startMember);
      awaitHealthy(cluster.members());
      pending.exceptionally(e -> null).join();
    }
  }

  @Test
  void aFollowerCutOffFromItsLeaderFailsAndRecovers() {
    try (TestCluster cluster = healthyCluster()) {
      RaftBackend follower = cluster.follower();
      List<String> others = othersThan(cluster, follower);

      others.forEach(cluster::stopMember);
      awaitFailing(follower, FOLLOWER_ALONE);

      others.forEach(cluster::startMember);
      awaitHealthy(cluster.members());
    }
  }

  @Test
  void aMemberWhoseApplyingIsWedgedFailsAndRecovers() {
    CountDownLatch unwedged = new CountDownLatch(1);
    // Ratis applies on one thread: holding it here wedges applying, as a stuck state machine would.
    Consumer<Batch> wedge = batch -> {
      if (batch.getOpsList().stream().anyMatch(op -> op.getWrite().getId().getName().equals("wedge"))) {
        try {
          unwedged.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    };
    try (RaftBackend member = RaftBackend.start(TestCluster.solo(dir.resolve("data")), wedge)) {
      await().atMost(TestCluster.STARTUP).until(() -> member.health().ok());
      CompletableFuture<?> wedged = CompletableFuture.runAsync(() -> member.writeCas(resource(id("wedge"))));
      awaitFailing(member, List.of("this member lags"));

      unwedged.countDown();
      wedged.join();
      awaitHealthy(List.of(member));
    }
  }

  /** Three members, each healthy once the first write is applied. */
  private static TestCluster healthyCluster() {
    TestCluster cluster = TestCluster.start(3, Limits.DEFAULT, TestCluster.FAST);
    cluster.writeNew("before");
    awaitHealthy(cluster.members());
    return cluster;
  }

  /** The names of the members of {@code cluster} but {@code member}. */
  private static List<String> othersThan(TestCluster cluster, RaftBackend member) {
    return cluster.members().stream().filter(m -> m != member).map(RaftBackend::nodeName).toList();
  }

  private static void awaitHealthy(List<RaftBackend> members) {
    await().atMost(Duration.ofSeconds(30)).until(() -> members.stream().allMatch(m -> m.health().ok()));
  }

  /** Waits at most 2 s for {@code member} to fail with one of {@code reasons}. */
  private static void awaitFailing(RaftBackend member, List<String> reasons) {
    Health failing = await().atMost(Duration.ofSeconds(2)).until(member::health, h -> !h.ok());
    assertThat(reasons).as("the reason %s", failing.reason()).anyMatch(failing.reason()::contains);
  }
}
