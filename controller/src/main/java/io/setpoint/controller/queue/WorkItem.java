package io.setpoint.controller.queue;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * One key handed out by {@link WorkQueue#take()}, with the story of how it got there. The taker
 * must call {@link WorkQueue#done(Object)} with the key when it has finished.
 *
 * @param key the key to process
 * @param triggers the causes of the adds merged into this item, oldest first, including delayed
 *     adds it serves before their time (a pending resync, say, that a change event pre-empted);
 *     bounded: when more than {@link #MAX_TRIGGERS} arrived, the first {@code MAX_TRIGGERS - 1} and
 *     the latest are kept
 * @param triggerCount how many adds were coalesced into this item (at least {@code triggers.size()})
 * @param priority the highest priority any of those adds asked for
 * @param retries how many failures are recorded for the key ({@link WorkQueue#retries}) when taken
 * @param enqueuedAt ticker time at which the key became ready: when it was added, or when its delay
 *     came due
 * @param takenAt ticker time at which it was taken
 */
public record WorkItem<K>(
    K key,
    List<Trigger> triggers,
    int triggerCount,
    Priority priority,
    int retries,
    long enqueuedAt,
    long takenAt) {

  /** The most triggers an item keeps. */
  public static final int MAX_TRIGGERS = 8;

  /** Checks the components; {@code triggers} is copied unless already immutable. */
  public WorkItem {
    Objects.requireNonNull(key, "key");
    triggers = List.copyOf(triggers);
    Objects.requireNonNull(priority, "priority");
    if (triggers.isEmpty() || triggerCount < triggers.size()) {
      throw new IllegalArgumentException(
          "need at least one trigger and triggerCount >= triggers: " + triggerCount + " " + triggers);
    }
  }

  /** The first cause: the add that queued the key. */
  public Trigger trigger() {
    return triggers.get(0);
  }

  /** How long the key waited between becoming ready and being taken. */
  public Duration queueWait() {
    return Duration.ofNanos(takenAt - enqueuedAt);
  }
}
