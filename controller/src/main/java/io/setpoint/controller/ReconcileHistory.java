package io.setpoint.controller;

import io.setpoint.controller.Manager.ReconcileRecord;
import io.setpoint.controller.queue.Trigger;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A controller's recent reconciles, newest first, and the last reconcile of each key, both bounded:
 * the oldest record, and the key reconciled least recently, go first. Kept across the controller's
 * restarts, like its meters.
 */
final class ReconcileHistory {
  /** Recent reconciles kept per controller. */
  static final int CAPACITY = 256;
  /** Keys whose last reconcile is kept per controller. */
  static final int KEYS = 10_000;

  private final String controller;
  private final Clock clock;
  private final int capacity;
  private final ArrayDeque<ReconcileRecord> recent;
  private final Map<String, ReconcileRecord> lastByKey;
  private long total;
  private long errors;

  ReconcileHistory(String controller, Clock clock, int capacity, int keys) {
    this.controller = controller;
    this.clock = clock;
    this.capacity = capacity;
    this.recent = new ArrayDeque<>(capacity);
    this.lastByKey = new LinkedHashMap<>() {
      @Override
      protected boolean removeEldestEntry(Map.Entry<String, ReconcileRecord> eldest) {
        return size() > keys;
      }
    };
  }

  /** Records a reconcile of {@code key} that has just ended after running for {@code took}. */
  void add(String key, List<Trigger> triggers, Duration queueWait, Duration took, String result, String message) {
    add(new ReconcileRecord(controller, key, triggers, clock.instant().minus(took), queueWait, took, result, message));
  }

  private synchronized void add(ReconcileRecord record) {
    if (recent.size() == capacity) {
      recent.removeLast();
    }
    recent.addFirst(record);
    total++;
    if (record.result().equals(ControllerMetrics.ERROR)) {
      errors++;
    }
    // Removed first, so the map's order is the order keys were last reconciled, which reads leave alone.
    lastByKey.remove(record.key());
    lastByKey.put(record.key(), record);
  }

  /** Reconciles recorded since the manager started, and how many of them failed. */
  synchronized Counts counts() {
    return new Counts(total, errors);
  }

  record Counts(long total, long errors) {
    static final Counts NONE = new Counts(0, 0);
  }

  /** Up to {@code limit} of the most recent reconciles, newest first. */
  synchronized List<ReconcileRecord> recent(int limit) {
    List<ReconcileRecord> out = new ArrayList<>(Math.min(limit, recent.size()));
    Iterator<ReconcileRecord> it = recent.iterator();
    while (it.hasNext() && out.size() < limit) {
      out.add(it.next());
    }
    return out;
  }

  /**
   * The recent reconciles of {@code key}, newest first; when none is recent any more, its last
   * reconcile, if the history still knows it.
   */
  synchronized List<ReconcileRecord> of(String key) {
    List<ReconcileRecord> out = new ArrayList<>();
    for (ReconcileRecord r : recent) {
      if (r.key().equals(key)) {
        out.add(r);
      }
    }
    if (out.isEmpty()) {
      ReconcileRecord last = lastByKey.get(key);
      if (last != null) {
        out.add(last);
      }
    }
    return out;
  }
}
