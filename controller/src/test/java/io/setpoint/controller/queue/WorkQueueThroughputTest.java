package io.setpoint.controller.queue;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * A rough single-threaded throughput check of the hot path add, take, done (the cycle
 * controller-runtime's AddGetDone benchmark measures). Not a JMH benchmark: run it on purpose with
 * {@code -Dsetpoint.bench=true}; on a shared CI machine the numbers mean little.
 */
@EnabledIfSystemProperty(named = "setpoint.bench", matches = "true")
class WorkQueueThroughputTest {
  private static final Trigger CAUSE = Trigger.event("bench");

  @Test
  void addTakeDone() throws InterruptedException {
    Integer[] keys = new Integer[1024];
    for (int i = 0; i < keys.length; i++) {
      keys[i] = i;
    }
    report("one tenant, 1 key in the queue", WorkQueue.<Integer>builder().build(), keys, 1);
    report("one tenant, 64 keys in the queue", WorkQueue.<Integer>builder().build(), keys, 64);
    Function<Integer, String> tenant = k -> (k & 7) == 0 ? "t0" : "t1";
    report(
        "two tenants, 64 keys in the queue",
        WorkQueue.<Integer>builder().tenant(tenant).build(),
        keys,
        64);
  }

  private static void report(String what, WorkQueue<Integer> q, Integer[] keys, int window)
      throws InterruptedException {
    run(q, keys, window, Duration.ofSeconds(2)); // warm-up
    double best = 0;
    for (int round = 0; round < 3; round++) {
      best = Math.max(best, run(q, keys, window, Duration.ofSeconds(1)));
    }
    System.out.printf("%-36s %,.0f add-take-done cycles/s (%.0f ns/cycle)%n", what, best, 1e9 / best);
    q.checkInvariants();
    assertThat(best).isPositive();
  }

  /** Keeps {@code window} keys queued; each cycle takes one, marks it done and adds the next. */
  private static double run(WorkQueue<Integer> q, Integer[] keys, int window, Duration length)
      throws InterruptedException {
    int next = 0;
    for (; next < window; next++) {
      q.add(keys[next % keys.length], CAUSE, Priority.HIGH);
    }
    long cycles = 0;
    long start = System.nanoTime();
    long end = start + length.toNanos();
    long now;
    do {
      for (int i = 0; i < 4096; i++) {
        WorkItem<Integer> item = q.take();
        q.done(item.key());
        q.add(keys[next++ & (keys.length - 1)], CAUSE, Priority.HIGH);
      }
      cycles += 4096;
      now = System.nanoTime();
    } while (now < end);
    for (int i = 0; i < window; i++) {
      q.done(q.take().key());
    }
    return cycles * 1e9 / (now - start);
  }
}
