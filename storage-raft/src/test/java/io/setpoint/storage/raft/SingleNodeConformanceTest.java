package io.setpoint.storage.raft;

import io.setpoint.storage.engine.StoreEngine.Limits;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** A one-member Raft cluster (the durable embedded store) against the storage conformance suite. */
class SingleNodeConformanceTest extends SharedClusterConformanceTest {
  private static TestCluster cluster;

  @BeforeAll
  static void startCluster() {
    cluster = TestCluster.start(1, Limits.DEFAULT, TestCluster.FAST);
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
    return 1;
  }

  @Override
  protected RaftBackend memberUnderTest(TestCluster c) {
    return c.awaitLeader();
  }
}
