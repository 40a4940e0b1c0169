package io.setpoint.storage.raft;

import java.util.concurrent.atomic.AtomicLong;

/**
 * What this member's Raft divisions did, across their restarts: leader changes seen, and snapshots
 * taken with the time they took. Read by {@link RaftBackend#status()}.
 */
final class RaftActivity {
  final AtomicLong leaderChanges = new AtomicLong();
  final AtomicLong snapshots = new AtomicLong();
  final AtomicLong snapshotNanos = new AtomicLong();

  void snapshotTaken(long nanos) {
    snapshots.incrementAndGet();
    snapshotNanos.addAndGet(nanos);
  }
}
