package io.setpoint.storage.raft;

import io.setpoint.storage.Backend;
import io.setpoint.storage.conformance.BackendConformanceTest;
import io.setpoint.storage.engine.StoreEngine.Limits;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs the conformance suite against Raft members without starting a cluster per test: a test's
 * main backend is an {@link IsolatedView} of a member of a cluster the class shares. Every other
 * backend a test asks for (other limits, or one it closes to check that closing closes watches) is
 * a member of a cluster of its own, started for it and deleted after it.
 */
abstract class SharedClusterConformanceTest extends BackendConformanceTest {
  private static final AtomicInteger VIEWS = new AtomicInteger();

  private final Map<Backend, TestCluster> ownClusters = new IdentityHashMap<>();
  /** JUnit makes an instance per test, so this marks the first backend of each test. */
  private boolean mainBackendGiven;

  /** The cluster this class shares. */
  protected abstract TestCluster sharedCluster();

  /** How many members a cluster has. */
  protected abstract int clusterSize();

  /** The member the suite talks to. */
  protected abstract RaftBackend memberUnderTest(TestCluster cluster);

  @Override
  protected Backend newBackend(Limits limits) {
    if (!mainBackendGiven && limits.equals(Limits.DEFAULT)) {
      mainBackendGiven = true;
      return new IsolatedView(memberUnderTest(sharedCluster()), "v" + VIEWS.incrementAndGet());
    }
    mainBackendGiven = true;
    TestCluster cluster = TestCluster.start(clusterSize(), limits, TestCluster.FAST);
    RaftBackend member = memberUnderTest(cluster);
    ownClusters.put(member, cluster);
    return member;
  }

  @Override
  protected void closeBackend(Backend backend) {
    TestCluster own = ownClusters.remove(backend);
    if (own != null) {
      own.close();
    } else {
      backend.close();
    }
  }
}
