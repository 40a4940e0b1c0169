package io.setpoint.controller.queue;

import static io.setpoint.controller.queue.Priority.HIGH;
import static io.setpoint.controller.queue.Queues.EVENT;
import static io.setpoint.controller.queue.Queues.drain;
import static io.setpoint.controller.queue.Queues.next;
import static io.setpoint.controller.queue.Queues.nextKeyDone;
import static org.assertj.core.api.Assertions.assertThat;

import io.setpoint.controller.time.ManualTicker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Delayed adds, override, backoff, forget and the token bucket, on a manual clock. */
class WorkQueueTimingTest {
  // Near the top of the range: every comparison must survive nanoTime wrapping around.
  private final ManualTicker ticker = new ManualTicker(Long.MAX_VALUE - 50_000_000L);
  private final WorkQueue<String> queue = Queues.<String>on(ticker).build();

  private void advanceMillis(long ms) {
    ticker.advance(Duration.ofMillis(ms));
  }

  @Test
  void aDelayedKeyIsServedNoSoonerThanItsDueTime() {
    queue.addAfter("a", Duration.ofMillis(100), EVENT, HIGH);
    assertThat(next(queue)).isNull();
    assertThat(queue.depth()).isZero();
    assertThat(queue.delayed()).isEqualTo(1);
    advanceMillis(99);
    assertThat(next(queue)).isNull();
    advanceMillis(1);
    assertThat(queue.depth()).isEqualTo(1);
    WorkQueue.Item<String> item = next(queue);
    assertThat(item.key()).isEqualTo("a");
    assertThat(item.queueWait()).as("measured from the due time").isZero();
    queue.checkInvariants();
  }

  @Test
  void delayedKeysComeDueInOrderOfDueTime() {
    queue.addAfter("c", Duration.ofMillis(30), EVENT, HIGH);
    queue.addAfter("a", Duration.ofMillis(10), EVENT, HIGH);
    queue.addAfter("b", Duration.ofMillis(20), EVENT, HIGH);
    queue.addAfter("d", Duration.ofMillis(20), EVENT, HIGH);
    advanceMillis(100);
    assertThat(drain(queue)).containsExactly("a", "b", "d", "c");
  }

  @Test
  void aLaterDelayOnlyMovesTheDueTimeEarlier() {
    queue.addAfter("a", Duration.ofMillis(50), EVENT, HIGH);
    queue.addAfter("a", Duration.ofMillis(80), EVENT, HIGH); // later: ignored
    advanceMillis(50);
    assertThat(nextKeyDone(queue)).isEqualTo("a");

    queue.addAfter("b", Duration.ofMillis(50), EVENT, HIGH);
    queue.addAfter("b", Duration.ofMillis(10), EVENT, HIGH); // earlier: wins
    advanceMillis(10);
    assertThat(nextKeyDone(queue)).isEqualTo("b");
    assertThat(queue.delayed()).as("one pending time per key").isZero();
  }

  @Test
  void overrideReplacesTheDueTimeEvenWithALaterOne() {
    queue.addAfter("a", Duration.ofMillis(10), EVENT, HIGH);
    queue.addAfter("a", Duration.ofMillis(60), Trigger.timer("requeue after 60ms"), HIGH, true);
    advanceMillis(59);
    assertThat(next(queue)).isNull();
    advanceMillis(1);
    assertThat(nextKeyDone(queue)).isEqualTo("a");
  }

  @Test
  void overrideNeverPostponesAKeyThatIsAlreadyReady() {
    // The usual sequence: an event arrives during a reconcile that then asks to be requeued later.
    queue.add("a", EVENT, HIGH);
    next(queue);
    queue.add("a", Trigger.event("changed meanwhile"), HIGH);
    queue.addAfter("a", Duration.ofMinutes(10), Trigger.timer("requeue"), HIGH, true);
    queue.done("a");
    WorkQueue.Item<String> item = next(queue);
    assertThat(item).as("the update that arrived meanwhile is not lost").isNotNull();
    assertThat(item.triggers()).extracting(Trigger::kind)
        .containsExactly(Trigger.Kind.EVENT, Trigger.Kind.TIMER);
  }

  @Test
  void anImmediateAddMakesADelayedKeyReadyNow() {
    queue.addAfter("a", Duration.ofHours(8), Trigger.resync(), Priority.LOW);
    queue.add("a", EVENT, HIGH);
    assertThat(queue.delayed()).isZero();
    WorkQueue.Item<String> item = next(queue);
    assertThat(item.key()).isEqualTo("a");
    assertThat(item.priority()).isEqualTo(HIGH);
    assertThat(item.triggers()).containsExactly(Trigger.resync(), EVENT);
    queue.done("a");
    advanceMillis(Duration.ofHours(9).toMillis());
    assertThat(next(queue)).as("the delayed add was consumed").isNull();
  }

  @Test
  void aZeroDelayIsAnImmediateAdd() {
    queue.addAfter("a", Duration.ZERO, EVENT, HIGH);
    queue.addAfter("b", Duration.ofMillis(-5), EVENT, HIGH, true);
    assertThat(drain(queue)).containsExactly("a", "b");
  }

  @Test
  void aDelayedAddDuringProcessingWaitsForBothTheDueTimeAndDone() {
    queue.add("a", EVENT, HIGH);
    next(queue);
    queue.addAfter("a", Duration.ofMillis(10), Trigger.timer("requeue"), HIGH, true);
    advanceMillis(20);
    assertThat(queue.depth()).as("due, but waiting for done").isEqualTo(1);
    assertThat(next(queue)).isNull();
    queue.done("a");
    assertThat(nextKeyDone(queue)).isEqualTo("a");

    queue.add("b", EVENT, HIGH);
    next(queue);
    queue.addAfter("b", Duration.ofMillis(10), Trigger.timer("requeue"), HIGH, true);
    queue.done("b");
    assertThat(next(queue)).as("done, but not due").isNull();
    advanceMillis(10);
    assertThat(nextKeyDone(queue)).isEqualTo("b");
  }

  @Test
  void backoffDoublesFromFiveMillisecondsUpToTheCap() {
    WorkQueue<String> q =
        Queues.<String>on(ticker).backoff(Duration.ofMillis(5), Duration.ofMillis(100)).build();
    List<Long> delays = new ArrayList<>();
    for (int attempt = 1; attempt <= 7; attempt++) {
      long start = ticker.read();
      q.addRateLimited("a", Trigger.retry("attempt " + attempt));
      assertThat(q.retries("a")).isEqualTo(attempt);
      long waited = 0;
      while (next(q) == null) {
        advanceMillis(1);
        waited++;
      }
      q.done("a");
      assertThat(ticker.read() - start).isEqualTo(waited * 1_000_000);
      delays.add(waited);
    }
    assertThat(delays).containsExactly(5L, 10L, 20L, 40L, 80L, 100L, 100L);
  }

  @Test
  void defaultBackoffIsFiveMillisecondsToThousandSeconds() {
    List<Long> seen = new ArrayList<>();
    WorkQueue<String> q =
        Queues.<String>on(ticker)
            .listener(
                new WorkQueue.Listener() {
                  @Override
                  public void retried(Trigger cause, long delayNanos) {
                    seen.add(delayNanos / 1_000_000);
                  }
                })
            .build();
    for (int i = 0; i < 30; i++) {
      q.addRateLimited("a", Trigger.retry(""));
    }
    assertThat(seen).startsWith(5L, 10L, 20L, 40L, 80L, 160L).endsWith(1_000_000L, 1_000_000L);
    assertThat(seen.get(17)).isEqualTo(5L << 17); // 655 s, the last step under the cap
    assertThat(seen.get(18)).isEqualTo(1_000_000L);
  }

  @Test
  void aCustomMultiplierGrowsMoreGently() {
    List<Long> seen = new ArrayList<>();
    WorkQueue<String> q =
        Queues.<String>on(ticker)
            .backoff(Duration.ofSeconds(2), Duration.ofSeconds(10), 1.5)
            .listener(
                new WorkQueue.Listener() {
                  @Override
                  public void retried(Trigger cause, long delayNanos) {
                    seen.add(delayNanos / 1_000_000);
                  }
                })
            .build();
    for (int i = 0; i < 6; i++) {
      q.addRateLimited("a", Trigger.retry(""));
    }
    assertThat(seen).containsExactly(2000L, 3000L, 4500L, 6750L, 10000L, 10000L);
  }

  @Test
  void forgetResetsTheBackoff() {
    queue.addRateLimited("a", Trigger.retry("1"));
    queue.addRateLimited("a", Trigger.retry("2"));
    queue.addRateLimited("a", Trigger.retry("3"));
    assertThat(queue.retries("a")).isEqualTo(3);
    advanceMillis(5);
    WorkQueue.Item<String> item = next(queue);
    assertThat(item.retries()).isEqualTo(3);
    queue.forget("a"); // success
    queue.done("a");
    assertThat(queue.retries("a")).isZero();

    queue.addRateLimited("a", Trigger.retry("4"));
    assertThat(queue.retries("a")).isEqualTo(1);
    advanceMillis(4);
    assertThat(next(queue)).isNull();
    advanceMillis(1);
    assertThat(nextKeyDone(queue)).as("back to the base delay").isEqualTo("a");
  }

  @Test
  void aRetryNeverPostponesAnEarlierPendingTime() {
    queue.add("a", EVENT, HIGH);
    queue.addRateLimited("a", Trigger.retry("x"));
    assertThat(nextKeyDone(queue)).isEqualTo("a");
  }

  @Test
  void failuresOfKeysThatAreNotQueuedAreRememberedUntilForgotten() {
    queue.addRateLimited("a", Trigger.retry(""));
    advanceMillis(5);
    nextKeyDone(queue);
    assertThat(queue.retries("a")).isEqualTo(1);
    queue.forget("a");
    queue.forget("never seen");
    assertThat(queue.retries("a")).isZero();
    queue.checkInvariants();
  }

  @Test
  void tokenBucketSpacesRetriesOnceTheBurstIsSpent() {
    // 10 per second, burst 3; backoff tiny so the bucket decides.
    List<Long> seen = new ArrayList<>();
    WorkQueue<String> q =
        Queues.<String>on(ticker)
            .backoff(Duration.ofNanos(1), Duration.ofNanos(1))
            .rateLimit(10, 3)
            .listener(
                new WorkQueue.Listener() {
                  @Override
                  public void retried(Trigger cause, long delayNanos) {
                    seen.add(delayNanos / 1_000_000);
                  }
                })
            .build();
    for (int i = 0; i < 6; i++) {
      q.addRateLimited("k" + i, Trigger.retry(""));
    }
    assertThat(seen).containsExactly(0L, 0L, 0L, 100L, 200L, 300L);

    advanceMillis(1000); // refills to the burst, no more
    seen.clear();
    for (int i = 0; i < 5; i++) {
      q.addRateLimited("j" + i, Trigger.retry(""));
    }
    assertThat(seen).containsExactly(0L, 0L, 0L, 100L, 200L);
  }

  @Test
  void theLongerOfBackoffAndBucketWins() {
    List<Long> seen = new ArrayList<>();
    WorkQueue<String> q =
        Queues.<String>on(ticker)
            .rateLimit(1, 1)
            .listener(
                new WorkQueue.Listener() {
                  @Override
                  public void retried(Trigger cause, long delayNanos) {
                    seen.add(delayNanos / 1_000_000);
                  }
                })
            .build();
    q.addRateLimited("a", Trigger.retry("")); // token available: backoff 5 ms
    q.addRateLimited("b", Trigger.retry("")); // bucket: 1 s
    assertThat(seen).containsExactly(5L, 1000L);
  }

  @Test
  void hugeDelaysAreClampedNotWrapped() {
    queue.addAfter("a", Duration.ofDays(365L * 1000), EVENT, HIGH);
    queue.addAfter("b", Duration.ofMillis(1), EVENT, HIGH);
    advanceMillis(1);
    assertThat(drain(queue)).containsExactly("b");
    assertThat(queue.delayed()).isEqualTo(1);
  }
}
