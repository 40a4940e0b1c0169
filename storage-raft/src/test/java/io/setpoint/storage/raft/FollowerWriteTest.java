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
 * A lone writer on a follower, with nobody else writing and heartbeats a second apart: the follower
 * learns that an entry is committed long after the leader has answered, unless it asks. Each write
 * returns only once the follower shows it, so the writer reads it there at once, even with an
 * eventual read. How long a write takes is a benchmark's business (`setpoint bench writes -nodes 3
 * -clients 1`), not this test's.
 */
class FollowerWriteTest {
  /** Ratis heartbeats a follower half an election timeout after it last heard back from it. */
  private static final Duration HEARTBEAT_INTERVAL = Duration.ofSeconds(1);

  private static final RaftTuning SLOW_HEARTBEATS =
      RaftTuning.DEFAULT.withElectionTimeout(HEARTBEAT_INTERVAL.multipliedBy(2), HEARTBEAT_INTERVAL.multipliedBy(3));

  private static final int WRITES = 6;

  @Test
  void aLoneWriterOnAFollowerReadsEachWriteThereOnceItReturns() {
    try (TestCluster cluster = TestCluster.start(3, Limits.DEFAULT, SLOW_HEARTBEATS)) {
      RaftBackend follower = cluster.follower();
      for (int i = 0; i < WRITES; i++) {
        Resource written = follower.writeCas(resource(id("lone-" + i)));
        assertThat(follower.read(Consistency.EVENTUAL, written.getId())).as("write %d, read on the follower", i).isEqualTo(written);
      }
    }
  }
}
