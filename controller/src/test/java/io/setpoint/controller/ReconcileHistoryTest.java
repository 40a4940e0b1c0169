package io.setpoint.controller;

import static org.assertj.core.api.Assertions.assertThat;

import io.setpoint.controller.Manager.ReconcileRecord;
import io.setpoint.controller.queue.Trigger;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;

class ReconcileHistoryTest {
  private static final Instant NOW = Instant.parse("2026-11-26T12:00:00Z");
  private final ReconcileHistory history = new ReconcileHistory("labels", Clock.fixed(NOW, ZoneOffset.UTC), 3, 2);

  private void add(String key, String result) {
    history.add(key, List.of(Trigger.event("upsert " + key)), Duration.ofMillis(2), Duration.ofMillis(5), result, "");
  }

  @Test
  void keepsTheNewestReconcilesFirstAndDropsTheOldestPastItsCapacity() {
    add("a", "success");
    add("b", "error");
    add("c", "success");
    add("d", "requeue");

    assertThat(history.recent(10)).extracting(ReconcileRecord::key).containsExactly("d", "c", "b");
    assertThat(history.recent(2)).extracting(ReconcileRecord::key).containsExactly("d", "c");
    ReconcileRecord d = history.recent(1).get(0);
    assertThat(d.controller()).isEqualTo("labels");
    assertThat(d.started()).as("the clock's now less the run").isEqualTo(NOW.minusMillis(5));
    assertThat(d.queueWait()).isEqualTo(Duration.ofMillis(2));
    assertThat(d.triggers()).containsExactly(Trigger.event("upsert d"));
  }

  @Test
  void countsEveryReconcileAndTheFailedOnesBeyondWhatItKeeps() {
    assertThat(history.counts()).isEqualTo(new ReconcileHistory.Counts(0, 0));
    add("a", "success");
    add("b", "error");
    add("c", "requeue_after");
    add("d", "error");
    add("e", "success");

    assertThat(history.recent(10)).hasSize(3);
    assertThat(history.counts()).isEqualTo(new ReconcileHistory.Counts(5, 2));
  }

  @Test
  void aKeyNoLongerRecentStillShowsItsLastReconcileWhileFewerKeysCameAfter() {
    add("a", "success");
    add("a", "error");
    assertThat(history.of("a")).extracting(ReconcileRecord::result).containsExactly("error", "success");

    add("b", "success");
    add("b", "success");
    add("b", "success");
    assertThat(history.recent(10)).extracting(ReconcileRecord::key).containsOnly("b");
    assertThat(history.of("a")).as("its last reconcile, out of the ring").extracting(ReconcileRecord::result)
        .containsExactly("error");

    add("c", "success"); // a third key: the one reconciled least recently, a, is forgotten
    assertThat(history.of("a")).isEmpty();
    assertThat(history.of("nobody")).isEmpty();
  }
}
