package io.setpoint.controller.queue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The queue's record of one key. It lives while the key is pending, in flight, or has recorded
 * failures, and carries the intrusive links of every structure it can be in, so moving a key between
 * them never allocates. Guarded by the queue's lock.
 */
final class Entry<K> {
  static final byte NONE = 0; // nothing pending
  static final byte READY = 1; // due now: in a lane, or dirty (waiting for done) when in flight
  static final byte DELAYED = 2; // in the delay heap until due

  final K key;
  final ReadyLanes.Tenant<K> tenant;

  byte pending = NONE;
  boolean inFlight;
  int failures;

  // What the pending adds asked for, reset when the key is taken.
  Priority priority;
  Trigger firstTrigger;
  Trigger[] moreTriggers; // lazily allocated, reused across cycles
  int triggerCount;
  long enqueuedAt; // when pending became READY
  long takenAt;

  // Delay heap.
  long due;
  long seq; // ties on due keep insertion order
  int heapIndex = -1;

  // Ready lanes.
  int level = -1; // index of the level whose lane holds this entry; -1 when in no lane
  long laneSince; // when it joined its current lane, for aging
  Entry<K> prev; // neighbours in the tenant's lane
  Entry<K> next;
  Entry<K> older; // neighbours in the level's age order (levels > 0 only)
  Entry<K> newer;

  Entry(K key, ReadyLanes.Tenant<K> tenant) {
    this.key = key;
    this.tenant = tenant;
  }

  /** Starts a fresh set of causes. */
  void firstCause(Trigger cause, Priority p) {
    firstTrigger = cause;
    triggerCount = 1;
    priority = p;
  }

  /** Merges another cause into the pending set: bounded, keeping the first ones and the latest. */
  void coalesce(Trigger cause, Priority p) {
    priority = Priority.max(priority, p);
    if (moreTriggers == null) {
      moreTriggers = new Trigger[WorkQueue.Item.MAX_TRIGGERS - 1];
    }
    int slot = Math.min(triggerCount, WorkQueue.Item.MAX_TRIGGERS - 1) - 1;
    moreTriggers[slot] = cause; // the last slot is overwritten by every later cause
    if (triggerCount < Integer.MAX_VALUE) {
      triggerCount++;
    }
  }

  /** The pending causes as an immutable list, oldest first. */
  List<Trigger> triggers() {
    if (triggerCount == 1) {
      return List.of(firstTrigger);
    }
    int n = Math.min(triggerCount, WorkQueue.Item.MAX_TRIGGERS);
    ArrayList<Trigger> out = new ArrayList<>(n);
    out.add(firstTrigger);
    for (int i = 0; i < n - 1; i++) {
      out.add(moreTriggers[i]);
    }
    return List.copyOf(out);
  }

  void clearCauses() {
    firstTrigger = null;
    if (moreTriggers != null && triggerCount > 1) {
      Arrays.fill(moreTriggers, null);
    }
    triggerCount = 0;
    priority = null;
  }

  /** Nothing pending, not in flight, no failures to remember: the queue can forget the key. */
  boolean idle() {
    return pending == NONE && !inFlight && failures == 0;
  }

  @Override
  public String toString() {
    return key + "{pending=" + pending + ", inFlight=" + inFlight + ", level=" + level + "}";
  }
}
