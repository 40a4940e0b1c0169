package io.setpoint.storage.raft;

import static io.setpoint.storage.conformance.Fixtures.id;
import static io.setpoint.storage.conformance.Fixtures.resource;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.setpoint.api.v1.Resource;
import io.setpoint.storage.Consistency;
import io.setpoint.storage.engine.Limits;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A lone writer on a follower, heartbeats 3 s apart: the follower answers a write once it has
 * applied it, and without the leader telling it of the commit it would learn of it only from the
 * next heartbeat. Each write must return well before that.
 */
class CommitPropagationTest {
  /** Ratis heartbeats a follower half an election timeout after it last sent it anything. */
  private static final Duration HEARTBEAT_INTERVAL = Duration.ofSeconds(3);

  private static final RaftTuning SLOW_HEARTBEATS =
      RaftTuning.DEFAULT.withElectionTimeout(HEARTBEAT_INTERVAL.multipliedBy(2), HEARTBEAT_INTERVAL.multipliedBy(3));

  private static final int WRITES = 20;

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
