package io.setpoint.storage.raft;

import java.time.Duration;
import java.util.Objects;

/**
 * Timing and batching of a Raft backend. {@link #DEFAULT} suits a LAN cluster on small, shared
 * machines; tests shorten the timeouts so elections take a fraction of a second.
 *
 * @param electionTimeoutMin a follower that hears nothing from a leader this long (plus a random
 *     part up to {@code electionTimeoutMax}) starts an election; the leader heartbeats well within
 *     it
 * @param electionTimeoutMax the upper bound of the randomised election timeout
 * @param requestTimeout how long one write or strong read may take, across retries and leader
 *     changes, before it fails with {@code UNAVAILABLE}
 * @param snapshotEvery how many Raft log entries are applied between automatic snapshots; the log
 *     up to a snapshot is then purged
 * @param logSegmentBytes the size at which a Raft log segment is closed; only closed segments are
 *     purged
 * @param leaderLease whether the leader answers strong reads from its lease instead of a heartbeat
 *     round (Ratis leaves it off unless told; it assumes bounded clock drift)
 * @param maxBatchOps the most operations group commit puts into one Raft log entry
 * @param maxBatchBytes the most serialized bytes group commit puts into one Raft log entry (a
 *     single larger operation still travels alone)
 * @param maxBatchesInFlight how many log entries a member may have submitted and not yet had
 *     answered; more writers than that queue and join the next entry
 */
public record RaftTuning(
    Duration electionTimeoutMin,
    Duration electionTimeoutMax,
    Duration requestTimeout,
    long snapshotEvery,
    long logSegmentBytes,
    boolean leaderLease,
    int maxBatchOps,
    int maxBatchBytes,
    int maxBatchesInFlight) {

  /**
   * Elections after 1-2 s of silence, 10 s per request, a snapshot every 10,000 log entries, 32 MiB
   * segments, leader lease on, up to 1,024 operations or 1 MiB per entry, 1 entry in flight per
   * member (Ratis pipelines appends itself; a second entry in flight only made entries smaller and
   * cost more CPU per write).
   */
  public static final RaftTuning DEFAULT =
      new RaftTuning(
          Duration.ofSeconds(1),
          Duration.ofSeconds(2),
          Duration.ofSeconds(10),
          10_000,
          32L << 20,
          true,
          1_024,
          1 << 20,
          1);

  public RaftTuning {
    Objects.requireNonNull(electionTimeoutMin, "electionTimeoutMin");
    Objects.requireNonNull(electionTimeoutMax, "electionTimeoutMax");
    Objects.requireNonNull(requestTimeout, "requestTimeout");
    if (electionTimeoutMin.isNegative()
        || electionTimeoutMin.isZero()
        || electionTimeoutMax.compareTo(electionTimeoutMin) < 0) {
      throw new IllegalArgumentException(
          "need 0 < electionTimeoutMin <= electionTimeoutMax, got "
              + electionTimeoutMin
              + " and "
              + electionTimeoutMax);
    }
    if (requestTimeout.compareTo(electionTimeoutMax) <= 0) {
      throw new IllegalArgumentException(
          "requestTimeout " + requestTimeout + " must exceed electionTimeoutMax, or no request survives an election");
    }
    if (snapshotEvery < 1 || logSegmentBytes < 1024) {
      throw new IllegalArgumentException("snapshotEvery must be >= 1 and logSegmentBytes >= 1024");
    }
    if (maxBatchOps < 1 || maxBatchBytes < 1 || maxBatchesInFlight < 1) {
      throw new IllegalArgumentException("batch limits must be at least 1");
    }
  }

  /** This tuning with other election timeouts. */
  public RaftTuning withElectionTimeout(Duration min, Duration max) {
    return new RaftTuning(
        min, max, requestTimeout, snapshotEvery, logSegmentBytes, leaderLease, maxBatchOps,
        maxBatchBytes, maxBatchesInFlight);
  }

  /** This tuning with another request timeout. */
  public RaftTuning withRequestTimeout(Duration timeout) {
    return new RaftTuning(
        electionTimeoutMin, electionTimeoutMax, timeout, snapshotEvery, logSegmentBytes,
        leaderLease, maxBatchOps, maxBatchBytes, maxBatchesInFlight);
  }

  /** This tuning with another snapshot interval and log segment size. */
  public RaftTuning withSnapshots(long every, long segmentBytes) {
    return new RaftTuning(
        electionTimeoutMin, electionTimeoutMax, requestTimeout, every, segmentBytes, leaderLease,
        maxBatchOps, maxBatchBytes, maxBatchesInFlight);
  }

  /** This tuning with other group commit limits. */
  public RaftTuning withBatching(int ops, int bytes, int inFlight) {
    return new RaftTuning(
        electionTimeoutMin, electionTimeoutMax, requestTimeout, snapshotEvery, logSegmentBytes,
        leaderLease, ops, bytes, inFlight);
  }

  /** This tuning with the leader lease on or off. */
  public RaftTuning withLeaderLease(boolean enabled) {
    return new RaftTuning(
        electionTimeoutMin, electionTimeoutMax, requestTimeout, snapshotEvery, logSegmentBytes,
        enabled, maxBatchOps, maxBatchBytes, maxBatchesInFlight);
  }
}
