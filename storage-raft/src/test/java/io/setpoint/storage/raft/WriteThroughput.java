package io.setpoint.storage.raft;

import static io.setpoint.storage.conformance.Fixtures.WIDGET;
import static io.setpoint.storage.conformance.Fixtures.data;
import static io.setpoint.storage.conformance.Fixtures.id;
import static io.setpoint.storage.conformance.Fixtures.tenancy;

import io.setpoint.api.v1.Resource;
import io.setpoint.storage.engine.StoreEngine.Limits;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;

/**
 * An informal throughput harness, not part of the suite (its name does not match Surefire's
 * includes): run it with {@code -Dtest=WriteThroughput}. Each of {@code writers} virtual threads
 * creates resources with 256-byte payloads, blocking on each write, for a fixed time.
 */
class WriteThroughput {
  private static final int WRITERS = Integer.getInteger("writers", 256);
  private static final Duration RUN = Duration.ofSeconds(Integer.getInteger("seconds", 5));
  private static final RaftConfig.Tuning TUNING =
      RaftConfig.Tuning.DEFAULT.withBatching(
          Integer.getInteger("batchOps", RaftConfig.Tuning.DEFAULT.maxBatchOps()),
          RaftConfig.Tuning.DEFAULT.maxBatchBytes(),
          Integer.getInteger("inFlight", RaftConfig.Tuning.DEFAULT.maxBatchesInFlight()));

  @Test
  void oneMember() throws Exception {
    try (TestCluster cluster = TestCluster.start(1, Limits.DEFAULT, TUNING)) {
      measure("1 member", cluster.awaitLeader());
    }
  }

  @Test
  void threeMembersThroughTheLeader() throws Exception {
    try (TestCluster cluster = TestCluster.start(3, Limits.DEFAULT, TUNING)) {
      measure("3 members, via leader", cluster.awaitLeader());
    }
  }

  @Test
  void threeMembersThroughAFollower() throws Exception {
    try (TestCluster cluster = TestCluster.start(3, Limits.DEFAULT, TUNING)) {
      measure("3 members, via follower", cluster.follower());
    }
  }

  private static void measure(String setup, RaftBackend backend) throws Exception {
    String payload = "x".repeat(256);
    // Warm up the JIT and connections for as long as the measurement.
    run(backend, payload, "warm", RUN);
    long logBefore = backend.replication().lastAppliedLogIndex();
    var os = (com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean();
    long cpuBefore = os.getProcessCpuTime();
    long start = System.nanoTime();
    long writes = run(backend, payload, "run", RUN);
    double seconds = (System.nanoTime() - start) / 1e9;
    double cpuMicrosPerWrite = (os.getProcessCpuTime() - cpuBefore) / 1e3 / writes;
    long entries = backend.replication().lastAppliedLogIndex() - logBefore;
    System.err.printf(
        "THROUGHPUT %s: %d writers, %d in flight, %.0f writes/s, %.1f writes per log entry, %.0f us CPU per write%n",
        setup, WRITERS, TUNING.maxBatchesInFlight(), writes / seconds, writes / (double) Math.max(1, entries),
        cpuMicrosPerWrite);
  }

  private static long run(RaftBackend backend, String payload, String phase, Duration duration)
      throws Exception {
    LongAdder done = new LongAdder();
    long end = System.nanoTime() + duration.toNanos();
    try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
      List<Future<?>> writers = new ArrayList<>();
      for (int w = 0; w < WRITERS; w++) {
        String prefix = phase + "-w" + w + "-";
        writers.add(
            pool.submit(
                () -> {
                  for (int i = 0; System.nanoTime() < end; i++) {
                    Resource r =
                        Resource.newBuilder()
                            .setId(id(WIDGET, tenancy("default", "default"), prefix + i).toBuilder().setUid(prefix + i))
                            .setData(data(payload))
                            .build();
                    backend.writeCas(r);
                    done.increment();
                  }
                  return null;
                }));
      }
      for (Future<?> f : writers) {
        f.get();
      }
    }
    return done.sum();
  }
}
