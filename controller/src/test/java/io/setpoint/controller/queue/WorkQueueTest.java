package io.setpoint.controller.queue;

import static io.setpoint.controller.queue.Priority.HIGH;
import static io.setpoint.controller.queue.Priority.LOW;
import static io.setpoint.controller.queue.Queues.EVENT;
import static io.setpoint.controller.queue.Queues.drain;
import static io.setpoint.controller.queue.Queues.next;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.setpoint.controller.time.ManualTicker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** De-duplication, processing and dirty keys, triggers, depth and listener callbacks. */
class WorkQueueTest {
  private final ManualTicker ticker = new ManualTicker(1_000);
  private final WorkQueue<String> queue = Queues.<String>on(ticker).build();

  @Test
  void servesKeysInArrivalOrder() {
    queue.add("a", EVENT, HIGH);
    queue.add("b", EVENT, HIGH);
    queue.add("c", EVENT, HIGH);
    assertThat(drain(queue)).containsExactly("a", "b", "c");
    assertThat(next(queue)).isNull();
  }

  @Test
  void aKeyIsQueuedAtMostOnce() {
    queue.add("a", EVENT, HIGH);
    queue.add("b", EVENT, HIGH);
    queue.add("a", EVENT, HIGH);
    queue.add("a", EVENT, HIGH);
    assertThat(queue.depth()).isEqualTo(2);
    assertThat(drain(queue)).containsExactly("a", "b");
  }

  @Test
  void anAddDuringProcessingIsKeptUntilDoneAndThenServed() {
    queue.add("a", EVENT, HIGH);
    WorkQueue.Item<String> first = next(queue);
    assertThat(first.key()).isEqualTo("a");
    assertThat(queue.inFlight()).isEqualTo(1);

    queue.add("a", Trigger.event("second"), HIGH);
    queue.add("a", Trigger.event("third"), HIGH);
    assertThat(next(queue)).as("never handed out twice at once").isNull();
    assertThat(queue.depth()).as("the dirty key counts as waiting").isEqualTo(1);
    queue.checkInvariants();

    queue.done("a");
    WorkQueue.Item<String> second = next(queue);
    assertThat(second.key()).isEqualTo("a");
    assertThat(second.triggers()).extracting(Trigger::detail).containsExactly("second", "third");
    queue.done("a");
    assertThat(next(queue)).isNull();
    queue.checkInvariants();
  }

  @Test
  void dropWaitingDropsOnlyMatchingDelayedKeysAndLeavesReadyOnesAlone() {
    queue.addAfter("a-1", Duration.ofSeconds(5), EVENT, LOW);
    queue.addAfter("a-2", Duration.ofSeconds(1), EVENT, LOW);
    queue.addAfter("b-1", Duration.ofSeconds(2), EVENT, LOW);
    queue.add("a-3", EVENT, HIGH);
    assertThat(queue.dropWaiting(key -> key.startsWith("a-"))).isEqualTo(2);
    assertThat(queue.delayed()).isEqualTo(1);
    queue.checkInvariants();
    ticker.advance(Duration.ofSeconds(10));
    assertThat(drain(queue)).containsExactly("a-3", "b-1");
    queue.checkInvariants();
  }

  @Test
  void doneIsForgottenWhenNothingIsPending() {
    queue.add("a", EVENT, HIGH);
    next(queue);
    queue.done("a");
    assertThat(next(queue)).isNull();
    assertThat(queue.depth()).isZero();
    assertThat(queue.inFlight()).isZero();
  }

  @Test
  void doneOfAKeyNotInFlightIsAnError() {
    assertThatThrownBy(() -> queue.done("never")).isInstanceOf(IllegalStateException.class);
    queue.add("a", EVENT, HIGH);
    assertThatThrownBy(() -> queue.done("a"))
        .as("queued but not taken")
        .isInstanceOf(IllegalStateException.class);
    next(queue);
    queue.done("a");
    assertThatThrownBy(() -> queue.done("a"))
        .as("done twice")
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void coalescedTriggersKeepTheFirstOnesTheLatestAndTheCount() {
    for (int i = 1; i <= 20; i++) {
      queue.add("a", Trigger.event("rev " + i), HIGH);
    }
    WorkQueue.Item<String> item = next(queue);
    assertThat(item.triggerCount()).isEqualTo(20);
    assertThat(item.triggers())
        .hasSize(WorkQueue.Item.MAX_TRIGGERS)
        .extracting(Trigger::detail)
        .containsExactly("rev 1", "rev 2", "rev 3", "rev 4", "rev 5", "rev 6", "rev 7", "rev 20");
    assertThat(item.trigger().detail()).isEqualTo("rev 1");
    queue.done("a");

    queue.add("a", Trigger.resync(), LOW);
    WorkQueue.Item<String> again = next(queue);
    assertThat(again.triggers()).containsExactly(Trigger.resync());
    assertThat(again.triggerCount()).isEqualTo(1);
    assertThat(again.priority()).isEqualTo(LOW);
  }

  @Test
  void workItemRecordsWhenTheKeyBecameReadyAndWhenItWasTaken() {
    queue.add("a", EVENT, HIGH);
    long added = ticker.read();
    ticker.advance(Duration.ofMillis(7));
    queue.add("a", EVENT, HIGH); // coalescing does not restart the clock
    ticker.advance(Duration.ofMillis(3));
    WorkQueue.Item<String> item = next(queue);
    assertThat(item.enqueuedAt()).isEqualTo(added);
    assertThat(item.takenAt()).isEqualTo(ticker.read());
    assertThat(item.queueWait()).isEqualTo(Duration.ofMillis(10));
  }

  @Test
  void addsAfterShutdownAreIgnoredAndTakersGetNull() {
    queue.add("a", EVENT, HIGH);
    queue.shutDown();
    queue.add("b", EVENT, HIGH);
    queue.addAfter("c", Duration.ofMillis(1), EVENT, HIGH);
    queue.addRateLimited("d", EVENT);
    assertThat(next(queue)).isNull();
    assertThat(queue.isShutDown()).isTrue();
    assertThat(queue.retries("d")).isZero();
  }

  @Test
  void listenerSeesAddsDepthWaitsWorkAndRetries() {
    List<String> events = new ArrayList<>();
    WorkQueue.Listener listener =
        new WorkQueue.Listener() {
          @Override
          public void added(Trigger cause, Priority priority, boolean coalesced) {
            events.add("add " + cause.detail() + " " + priority + (coalesced ? " coalesced" : ""));
          }

          @Override
          public void depthChanged(int depth) {
            events.add("depth " + depth);
          }

          @Override
          public void taken(WorkQueue.Item<?> item) {
            events.add("taken " + item.key() + " after " + item.queueWait().toMillis() + "ms");
          }

          @Override
          public void done(long workNanos) {
            events.add("done after " + workNanos / 1_000_000 + "ms");
          }

          @Override
          public void retried(Trigger cause, long delayNanos) {
            events.add("retry " + cause.detail() + " in " + delayNanos / 1_000_000 + "ms");
          }
        };
    WorkQueue<String> q = Queues.<String>on(ticker).listener(listener).build();
    q.add("a", Trigger.event("1"), LOW);
    q.add("a", Trigger.event("2"), HIGH);
    ticker.advance(Duration.ofMillis(2));
    next(q);
    ticker.advance(Duration.ofMillis(5));
    q.addRateLimited("a", Trigger.retry("boom"));
    q.done("a");
    assertThat(events)
        .containsExactly(
            "add 1 LOW",
            "depth 1",
            "add 2 HIGH coalesced",
            "depth 0",
            "taken a after 2ms",
            "retry boom in 5ms",
            "add boom HIGH",
            "done after 5ms");
  }

  @Test
  void builderRejectsNonsense() {
    WorkQueue.Builder<String> b = WorkQueue.builder();
    assertThatThrownBy(() -> b.backoff(Duration.ZERO, Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> b.backoff(Duration.ofSeconds(2), Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> b.backoff(Duration.ofMillis(1), Duration.ofSeconds(1), 0.5))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> b.rateLimit(0, 10)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> b.rateLimit(10, 0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> b.aging(Duration.ofMillis(-1)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> queue.add(null, EVENT, HIGH)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> queue.add("a", null, HIGH)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> queue.add("a", EVENT, null)).isInstanceOf(NullPointerException.class);
  }

  @Test
  void triggerFactoriesAndText() {
    assertThat(Trigger.event("upsert x @ revision 7"))
        .hasToString("EVENT upsert x @ revision 7")
        .isEqualTo(Trigger.of(Trigger.Kind.EVENT, "upsert x @ revision 7"));
    assertThat(Trigger.startup()).hasToString("STARTUP").isSameAs(Trigger.startup());
    assertThat(Trigger.resync().kind()).isEqualTo(Trigger.Kind.RESYNC);
    assertThat(Trigger.timer("t").kind()).isEqualTo(Trigger.Kind.TIMER);
    assertThat(Trigger.retry("r").kind()).isEqualTo(Trigger.Kind.RETRY);
    assertThat(Trigger.manual("m").kind()).isEqualTo(Trigger.Kind.MANUAL);
    assertThatThrownBy(() -> Trigger.event(null)).isInstanceOf(NullPointerException.class);
  }
}
