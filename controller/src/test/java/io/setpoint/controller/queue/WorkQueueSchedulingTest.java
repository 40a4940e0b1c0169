package io.setpoint.controller.queue;

import static io.setpoint.controller.queue.Priority.HIGH;
import static io.setpoint.controller.queue.Priority.LOW;
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

/** Priorities, aging and round-robin between tenants. */
class WorkQueueSchedulingTest {
  private final ManualTicker ticker = new ManualTicker();

  /** Keys look like "tenant:name". */
  private WorkQueue<String> tenanted() {
    return Queues.<String>on(ticker).tenant(k -> k.substring(0, k.indexOf(':'))).build();
  }

  @Test
  void highKeysAreServedBeforeLowOnes() {
    WorkQueue<String> q = Queues.<String>on(ticker).build();
    q.add("low1", Trigger.startup(), LOW);
    q.add("low2", Trigger.startup(), LOW);
    q.add("high1", EVENT, HIGH);
    q.add("high2", EVENT, HIGH);
    assertThat(drain(q)).containsExactly("high1", "high2", "low1", "low2");
  }

  @Test
  void aHighAddRaisesAQueuedLowKey() {
    WorkQueue<String> q = Queues.<String>on(ticker).build();
    q.add("a", Trigger.startup(), LOW);
    q.add("b", Trigger.startup(), LOW);
    q.add("c", EVENT, HIGH);
    q.add("b", EVENT, HIGH);
    q.add("c", Trigger.resync(), LOW); // a lower add never lowers
    List<WorkQueue.Item<String>> items = new ArrayList<>();
    WorkQueue.Item<String> item;
    while ((item = next(q)) != null) {
      items.add(item);
      q.done(item.key());
    }
    assertThat(items).extracting(WorkQueue.Item::key).containsExactly("c", "b", "a");
    assertThat(items).extracting(WorkQueue.Item::priority).containsExactly(HIGH, HIGH, LOW);
    q.checkInvariants();
  }

  @Test
  void theRaisedPriorityOfADelayedOrDirtyKeyIsKept() {
    WorkQueue<String> q = Queues.<String>on(ticker).build();
    q.addAfter("d", Duration.ofMillis(5), Trigger.resync(), LOW);
    q.addAfter("d", Duration.ofMillis(9), EVENT, HIGH);
    q.add("x", Trigger.startup(), LOW);
    ticker.advance(Duration.ofMillis(5));
    assertThat(nextKeyDone(q)).isEqualTo("d");

    q.add("a", EVENT, HIGH);
    next(q);
    q.add("a", Trigger.resync(), LOW);
    q.add("a", EVENT, HIGH);
    q.add("y", Trigger.startup(), LOW);
    q.done("a");
    assertThat(drain(q)).containsExactly("a", "x", "y");
  }

  @Test
  void lowKeysNeverStarve() {
    // A steady stream of HIGH keys, one taken per millisecond, and one LOW key at the start.
    WorkQueue<String> q = Queues.<String>on(ticker).aging(Duration.ofMillis(100)).build();
    q.add("low", Trigger.resync(), LOW);
    int served = 0;
    String key;
    do {
      q.add("high" + served, EVENT, HIGH);
      q.add("high" + served + "b", EVENT, HIGH); // arrivals outpace the taker
      ticker.advance(Duration.ofMillis(1));
      key = nextKeyDone(q);
      served++;
    } while (!key.equals("low") && served < 10_000);
    assertThat(key).isEqualTo("low");
    // Aged after 100 ms, it is served at the next take, ahead of the 100 HIGH keys waiting.
    assertThat(served).isEqualTo(100);
  }

  @Test
  void agedLowKeysTakeTurnsWithHighKeys() {
    WorkQueue<String> q = Queues.<String>on(ticker).aging(Duration.ofSeconds(1)).build();
    for (int i = 0; i < 3; i++) {
      q.add("low" + i, Trigger.resync(), LOW);
    }
    q.add("h1", EVENT, HIGH);
    ticker.advance(Duration.ofMillis(999));
    assertThat(nextKeyDone(q)).as("not aged yet").isEqualTo("h1");
    for (int i = 2; i <= 4; i++) {
      q.add("h" + i, EVENT, HIGH);
    }
    ticker.advance(Duration.ofMillis(1));
    assertThat(drain(q)).containsExactly("low0", "h2", "low1", "h3", "low2", "h4");
  }

  @Test
  void aStartupFloodDelaysALiveEventByAtMostOneKey() {
    WorkQueue<String> q = Queues.<String>on(ticker).aging(Duration.ofSeconds(1)).build();
    for (int i = 0; i < 100_000; i++) {
      q.add("startup" + i, Trigger.startup(), LOW);
    }
    ticker.advance(Duration.ofSeconds(5)); // every startup key has aged
    for (int event = 0; event < 10; event++) {
      q.add("event" + event, EVENT, HIGH);
      String first = nextKeyDone(q);
      String second = first.startsWith("event") ? first : nextKeyDone(q);
      assertThat(second).as("live event %d", event).isEqualTo("event" + event);
      ticker.advance(Duration.ofMillis(1));
    }
    assertThat(q.depth()).isGreaterThan(99_980);
  }

  @Test
  void agingCountsFromWhenTheKeyBecameReadyNotFromItsDelayedAdd() {
    WorkQueue<String> q = Queues.<String>on(ticker).aging(Duration.ofSeconds(1)).build();
    q.addAfter("resync", Duration.ofSeconds(5), Trigger.resync(), LOW);
    ticker.advance(Duration.ofSeconds(5));
    q.add("h", EVENT, HIGH);
    assertThat(drain(q)).containsExactly("h", "resync");
  }

  @Test
  void tenantsAreServedRoundRobin() {
    WorkQueue<String> q = tenanted();
    for (int i = 0; i < 4; i++) {
      q.add("a:" + i, EVENT, HIGH);
    }
    q.add("b:0", EVENT, HIGH);
    q.add("b:1", EVENT, HIGH);
    q.add("c:0", EVENT, HIGH);
    assertThat(drain(q)).containsExactly("a:0", "b:0", "c:0", "a:1", "b:1", "a:2", "a:3");
  }

  @Test
  void aNoisyTenantDelaysAQuietOneByAtMostOneKeyPerTenant() {
    WorkQueue<String> q = tenanted();
    for (int i = 0; i < 10_000; i++) {
      q.add("noisy:" + i, EVENT, HIGH);
    }
    // The noisy tenant is being worked through when the quiet tenant's key arrives.
    for (int i = 0; i < 500; i++) {
      nextKeyDone(q);
    }
    q.add("quiet:only", EVENT, HIGH);
    assertThat(List.of(nextKeyDone(q), nextKeyDone(q))).containsExactly("noisy:500", "quiet:only");
    assertThat(q.depth()).isEqualTo(10_001 - 502);
    q.checkInvariants();
  }

  @Test
  void aNoisyTenantsLowKeysDoNotDelayAnotherTenantsLowKeyEither() {
    WorkQueue<String> q = tenanted();
    for (int i = 0; i < 10_000; i++) {
      q.add("noisy:" + i, Trigger.startup(), LOW);
    }
    q.add("quiet:only", Trigger.startup(), LOW);
    List<String> firstTwo = List.of(nextKeyDone(q), nextKeyDone(q));
    assertThat(firstTwo).containsExactly("noisy:0", "quiet:only");
  }

  @Test
  void fairnessAppliesWithinEachPriority() {
    WorkQueue<String> q = tenanted();
    q.add("a:low", Trigger.startup(), LOW);
    q.add("b:low", Trigger.startup(), LOW);
    q.add("a:1", EVENT, HIGH);
    q.add("a:2", EVENT, HIGH);
    q.add("b:1", EVENT, HIGH);
    assertThat(drain(q)).containsExactly("a:1", "b:1", "a:2", "a:low", "b:low");
  }

  @Test
  void tenantsComeAndGoWithoutLeaking() {
    WorkQueue<String> q = tenanted();
    for (int round = 0; round < 3; round++) {
      for (int t = 0; t < 100; t++) {
        q.add("t" + t + ":x", EVENT, HIGH);
      }
      assertThat(drain(q)).hasSize(100);
    }
    q.checkInvariants();
    assertThat(q.tenantCount()).isZero();
  }
}
