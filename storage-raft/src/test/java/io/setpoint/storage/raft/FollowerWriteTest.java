package io.setpoint.storage.raft;

import static io.setpoint.storage.conformance.Fixtures.id;
import static io.setpoint.storage.conformance.Fixtures.resource;
import static org.assertj.core.api.Assertions.assertThat;

import io.setpoint.api.v1.Resource;
import io.setpoint.storage.Consistency;
import io.setpoint.storage.engine.StoreEngine.Limits;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A lone writer on a follower, with nobody else writing and heartbeats a second apart: the follower
 * learns that an entry is committed after the leader has answered, from the leader's next append.
 * Each write returns only once the follower shows it, so the writer reads it there at once, even
 * with an eventual read. That it returns soon is {@link CommitPropagationTest}'s business.
 */
class FollowerWriteTest {
  private static final Duration HEARTBEAT_INTERVAL = Duration.ofSeconds(1);

  private static final RaftConfig.Tuning SLOW_HEARTBEATS = TestCluster.heartbeatsEvery(HEARTBEAT_INTERVAL);

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
