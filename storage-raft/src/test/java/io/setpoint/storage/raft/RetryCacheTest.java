package io.setpoint.storage.raft;

import static io.setpoint.storage.conformance.Fixtures.id;
import static io.setpoint.storage.conformance.Fixtures.resource;
import static org.assertj.core.api.Assertions.assertThat;

import io.setpoint.storage.engine.StoreEngine.Limits;
import org.junit.jupiter.api.Test;

/**
 * A leader's own writes, which nothing sends twice, leave Raft's retry cache once answered, rather
 * than staying there with their replies for the cache's expiry.
 */
class RetryCacheTest {
  @Test
  void answeredWritesOfTheLeaderLeaveItsRetryCache() {
    try (TestCluster cluster = TestCluster.start(1, Limits.DEFAULT, TestCluster.FAST)) {
      RaftBackend backend = cluster.awaitLeader();
      int writes = 200;
      for (int i = 0; i < writes; i++) {
        backend.writeCas(resource(id("r" + i)));
      }
      // Each request names the writes answered before it: the last one or two wait for the next.
      assertThat(backend.replication().retryCacheSize()).as("retry cache entries after %d writes", writes).isLessThanOrEqualTo(2);
    }
  }
}
