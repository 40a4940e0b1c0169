package io.setpoint.storage.raft;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentNavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * The store revision this member has applied, and waits for it to reach a given one: a write
 * answered by the leader returns only once this member shows it, so a caller reads its own writes
 * on the member it wrote through.
 */
final class AppliedRevision {
  private volatile long applied;
  private final ConcurrentSkipListMap<Long, CompletableFuture<Void>> waiting =
      new ConcurrentSkipListMap<>();

  long get() {
    return applied;
  }

  /** Called by the applier once everything up to {@code revision} is readable. */
  void advance(long revision) {
    applied = revision;
    // A waiter registers, then re-reads `applied`; this writes `applied`, then scans: one of the
    // two always sees the other.
    if (!waiting.isEmpty()) {
      ConcurrentNavigableMap<Long, CompletableFuture<Void>> reached = waiting.headMap(revision, true);
      for (Map.Entry<Long, CompletableFuture<Void>> e : reached.entrySet()) {
        e.getValue().complete(null);
      }
      reached.clear();
    }
  }

  /** Completes once {@code revision} is applied: at once if it is, else from the applier. */
  CompletableFuture<Void> reached(long revision) {
    if (applied >= revision) {
      return CompletableFuture.completedFuture(null);
    }
    CompletableFuture<Void> reached = waiting.computeIfAbsent(revision, r -> new CompletableFuture<>());
    if (applied >= revision) {
      reached.complete(null);
      waiting.remove(revision, reached);
    }
    return reached;
  }
}
