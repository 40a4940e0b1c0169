package io.setpoint.storage.raft;

import static io.setpoint.storage.conformance.Fixtures.id;
import static io.setpoint.storage.conformance.Fixtures.resource;
import static org.assertj.core.api.Assertions.assertThat;

import io.setpoint.api.v1.Resource;
import io.setpoint.storage.Consistency;
import io.setpoint.storage.engine.Limits;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A lone writer on a follower, with nobody else writing: the only appends the leader sends are the
 * writer's own entries and heartbeats, and a follower that waited for the next append to learn its
 * write was committed would wait for a heartbeat every time.
 */
class FollowerWriteTest {
  /** Ratis heartbeats a follower half an election timeout after it last heard back from it. */
  private static final Duration HEARTBEAT_INTERVAL = Duration.ofSeconds(1);

  private static final RaftTuning SLOW_HEARTBEATS =
      RaftTuning.DEFAULT.withElectionTimeout(HEARTBEAT_INTERVAL.multipliedBy(2), HEARTBEAT_INTERVAL.multipliedBy(3));

  private static final int WRITES = 6;

  @Test
  void aLoneWriterOnAFollowerIsAnsweredWithoutWaitingForAHeartbeat() {
    try (TestCluster cluster = TestCluster.start(3, Limits.DEFAULT, SLOW_HEARTBEATS)) {
      RaftBackend follower = cluster.follower();
      long start = System.nanoTime();
      for (int i = 0; i < WRITES; i++) {
        Resource written = follower.writeCas(resource(id("lone-" + i)));
        assertThat(follower.read(Consistency.EVENTUAL, written.getId())).isEqualTo(written);
      }
      Duration took = Duration.ofNanos(System.nanoTime() - start);
      System.out.printf("FollowerWriteTest: %d writes through a follower took %d ms%n", WRITES, took.toMillis());
      // Each write waiting for a heartbeat, the writes took an interval each (6 s); answered once
      // committed, milliseconds each. The bound, two intervals, is far from both.
      assertThat(took)
          .as("%s writes through a follower, heartbeats %s apart", WRITES, HEARTBEAT_INTERVAL)
          .isLessThan(HEARTBEAT_INTERVAL.multipliedBy(2));
    }
  }
}
