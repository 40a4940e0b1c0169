package io.setpoint.storage.raft;

import static io.setpoint.storage.conformance.Fixtures.id;
import static org.assertj.core.api.Assertions.assertThat;

import io.setpoint.api.v1.ID;
import io.setpoint.storage.engine.StoreEngine.Limits;
import io.setpoint.testkit.KeyHistory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * Clients on every member of a three-member cluster read and compare-and-swap one register while
 * the leader is stopped and restarted twice; the recorded history must be linearizable.
 */
class FailoverLinearizabilityTest {
  private static final ID REGISTER = id("register");

  @Test
  void concurrentCasStaysLinearizableAcrossLeaderFailovers() throws Exception {
    try (TestCluster cluster = TestCluster.start(3, Limits.DEFAULT, TestCluster.FAST)) {
      List<String> names = cluster.members().stream().map(RaftBackend::nodeName).toList();
      KeyHistory history = new KeyHistory();
      AtomicBoolean running = new AtomicBoolean(true);
      int clients = 4;
      try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
        List<Future<Integer>> done = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
          String client = "c" + c;
          done.add(pool.submit(() -> RegisterClient.run(client, REGISTER,
              () -> cluster.member(names.get(ThreadLocalRandom.current().nextInt(names.size()))), history, running)));
        }
        for (int failover = 0; failover < 2; failover++) {
          awaitProgress(history, 40);
          RaftBackend leader = cluster.awaitLeader();
          cluster.stopMember(leader.nodeName());
          cluster.awaitLeader();
          awaitProgress(history, 40);
          cluster.startMember(leader.nodeName());
        }
        awaitProgress(history, 40);
        running.set(false);
        int succeeded = 0;
        for (Future<Integer> f : done) {
          succeeded += f.get(60, TimeUnit.SECONDS);
        }
        assertThat(succeeded).as("swaps that took effect").isGreaterThan(20);
      }
      assertThat(history.isLinearizable()).as("history of %d operations", history.ops().size()).isTrue();
    }
  }

  /** Waits until {@code more} further operations completed (so each phase does some work). */
  private static void awaitProgress(KeyHistory history, int more) {
    int target = history.ops().size() + more;
    org.awaitility.Awaitility.await()
        .atMost(java.time.Duration.ofSeconds(30))
        .until(() -> history.ops().size() >= target);
  }
}
