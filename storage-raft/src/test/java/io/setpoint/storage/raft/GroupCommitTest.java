package io.setpoint.storage.raft;

import static io.setpoint.storage.conformance.Fixtures.id;
import static io.setpoint.storage.conformance.Fixtures.resource;
import static org.assertj.core.api.Assertions.assertThat;

import io.setpoint.api.v1.Resource;
import io.setpoint.storage.Consistency;
import io.setpoint.storage.engine.StoreEngine.Limits;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Concurrent writes share Raft log entries, and each writer still gets its own answer. */
class GroupCommitTest {
  @Test
  void concurrentWritersShareLogEntriesAndEachGetsItsOwnVersion() throws Exception {
    int writers = 64;
    int writesEach = 20;
    try (TestCluster cluster = TestCluster.start(1, Limits.DEFAULT, TestCluster.FAST)) {
      RaftBackend backend = cluster.awaitLeader();
      long entriesBefore = backend.replication().lastAppliedLogIndex();
      Set<String> versions = ConcurrentHashMap.newKeySet();
      CyclicBarrier start = new CyclicBarrier(writers);
      try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
        List<Future<?>> done = new ArrayList<>();
        for (int w = 0; w < writers; w++) {
          String prefix = "w" + w + "-";
          done.add(
              pool.submit(
                  () -> {
                    start.await();
                    for (int i = 0; i < writesEach; i++) {
                      Resource stored = backend.writeCas(resource(id(prefix + i)));
                      versions.add(stored.getVersion());
                      assertThat(backend.read(Consistency.EVENTUAL, stored.getId())).isEqualTo(stored);
                    }
                    return null;
                  }));
        }
        for (Future<?> f : done) {
          f.get(60, TimeUnit.SECONDS);
        }
      }
      int writes = writers * writesEach;
      long entries = backend.replication().lastAppliedLogIndex() - entriesBefore;
      assertThat(versions).as("every write has a version of its own").hasSize(writes);
      assertThat(entries)
          .as("%d writes from %d concurrent writers took %d log entries", writes, writers, entries)
          .isLessThanOrEqualTo(writes / 4);
    }
  }
}
