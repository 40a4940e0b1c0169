package io.setpoint.storage.raft;

import io.setpoint.storage.engine.StoreEngine.Limits;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * A follower of a three-member Raft cluster against the storage conformance suite: every write is
 * forwarded to the leader, and every read, watch and "readable after notified" check is served by
 * the follower's own applied state.
 */
class FollowerConformanceTest extends SharedClusterConformanceTest {
  private static TestCluster cluster;

  @BeforeAll
  static void startCluster() {
    cluster = TestCluster.start(3, Limits.DEFAULT, TestCluster.FAST);
  }

  @AfterAll
  static void stopCluster() {
    cluster.close();
  }

  @Override
  protected TestCluster sharedCluster() {
    return cluster;
  }

  @Override
  protected int clusterSize() {
    return 3;
  }

  @Override
  protected RaftBackend memberUnderTest(TestCluster c) {
    return c.follower();
  }
}
