package io.setpoint.storage.raft;

import static io.setpoint.storage.conformance.Fixtures.id;
import static io.setpoint.storage.conformance.Fixtures.resource;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.setpoint.api.v1.Resource;
import io.setpoint.storage.Consistency;
import io.setpoint.storage.engine.StoreEngine.Limits;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The leader's appenders. Their wake-up is not lost. And a lone writer on a follower, heartbeats 3 s
 * apart, is answered well before the next heartbeat: the follower answers a write once it has
 * applied it, and unless the leader tells it of the commit it learns of it from that heartbeat.
 */
class CommitPropagationTest {
  private static final Duration HEARTBEAT_INTERVAL = Duration.ofSeconds(3);

  private static final RaftConfig.Tuning SLOW_HEARTBEATS = TestCluster.heartbeatsEvery(HEARTBEAT_INTERVAL);

  private static final int WRITES = 20;

  @Test
  void aSignalWithNobodyWaitingEndsTheNextWaitAndOnlyThatOne() throws InterruptedException {
    CommitPropagation.WakeUp wakeUp = new CommitPropagation.WakeUp("appender");
    wakeUp.signal();

    // Ratis's own AwaitForSignal returns false here: the signal went to nobody and was lost.
    assertThat(wakeUp.await(1, TimeUnit.NANOSECONDS)).isTrue();
    assertThat(wakeUp.await(1, TimeUnit.NANOSECONDS)).as("the signal was taken").isFalse();
    assertThat(wakeUp.await(0, TimeUnit.SECONDS)).as("no wait at all, as in Ratis").isFalse();
  }

  @Test
  void aLoneWriteThroughAFollowerIsAnsweredBeforeTheNextHeartbeat() {
    try (TestCluster cluster = TestCluster.start(3, Limits.DEFAULT, SLOW_HEARTBEATS)) {
      RaftBackend follower = cluster.follower();
      for (int i = 0; i < WRITES; i++) {
        String name = "lone-" + i;
        Resource written = assertTimeoutPreemptively(HEARTBEAT_INTERVAL.dividedBy(2),
            () -> follower.writeCas(resource(id(name))), () -> "write " + name + " waited for a heartbeat");
        assertThat(follower.read(Consistency.EVENTUAL, written.getId())).isEqualTo(written);
      }
    }
  }
}
