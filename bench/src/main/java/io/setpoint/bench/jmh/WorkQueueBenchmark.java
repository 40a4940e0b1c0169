package io.setpoint.bench.jmh;

import io.kubernetes.client.extended.workqueue.DefaultRateLimitingQueue;
import io.setpoint.controller.queue.Priority;
import io.setpoint.controller.queue.Trigger;
import io.setpoint.controller.queue.WorkQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;

/**
 * The work queue's hot path, one add → take → done cycle per operation (what controller-runtime's
 * AddGetDone benchmark measures), against client-java's {@code DefaultRateLimitingQueue} in the
 * same run. {@code window} keys stay queued, so every take finds work and every add is a new key.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Threads(1)
public class WorkQueueBenchmark extends StandardRun {
  private static final Trigger CAUSE = Trigger.event("bench");
  private static final int KEYS = 1024;

  @Param({"1", "64"})
  public int window;

  private final Integer[] keys = new Integer[KEYS];
  private WorkQueue<Integer> setpoint;
  private DefaultRateLimitingQueue<Integer> kubernetes;
  private ExecutorService kubernetesTimers;
  private int next;

  @Setup(Level.Trial)
  public void setUp() {
    for (int i = 0; i < KEYS; i++) {
      keys[i] = i;
    }
    setpoint = WorkQueue.<Integer>builder().build();
    kubernetesTimers = Executors.newSingleThreadExecutor();
    kubernetes = new DefaultRateLimitingQueue<>(kubernetesTimers);
    for (next = 0; next < window; next++) {
      setpoint.add(keys[next], CAUSE, Priority.HIGH);
      kubernetes.add(keys[next]);
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    setpoint.shutDown();
    kubernetes.shutDown();
    kubernetesTimers.shutdownNow();
  }

  @Benchmark
  public Integer setpointAddTakeDone() throws InterruptedException {
    WorkQueue.Item<Integer> item = setpoint.take();
    setpoint.done(item.key());
    setpoint.add(keys[next++ & (KEYS - 1)], CAUSE, Priority.HIGH);
    return item.key();
  }

  @Benchmark
  public Integer kubernetesAddGetDone() throws InterruptedException {
    Integer key = kubernetes.get();
    kubernetes.done(key);
    kubernetes.add(keys[next++ & (KEYS - 1)]);
    return key;
  }
}
