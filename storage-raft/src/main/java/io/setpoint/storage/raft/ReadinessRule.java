package io.setpoint.storage.raft;

import io.setpoint.storage.Health;
import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * Whether this member can commit and apply writes now, judged from successive looks at its Raft
 * division ({@link RaftProgress}). A member fails at once when it neither leads nor follows a known
 * leader (an election is on, or it cannot reach a majority), as it takes no write then; and when,
 * for longer than {@code bound},
 *
 * <ul>
 *   <li>it follows, but has heard nothing from its leader;
 *   <li>it leads, but fewer than a majority of the voting members (itself included) answered it;
 *   <li>it leads and has entries it has not committed, and its commit index has not moved;
 *   <li>it has not applied an index that it knew to be committed (its own commit index, or the
 *       leader's as reported) {@code bound} ago.
 * </ul>
 *
 * The bound keeps a short pause from counting. Time is read from {@code nanos} only, so that tests
 * move it by hand; the member looks at its division every so often and on every question, so a
 * failure shows within {@code bound} plus that interval, and clears on the first look that no
 * longer sees it.
 */
final class ReadinessRule {
  private final Duration bound;
  private final LongSupplier nanos;
  /** The commit index a leader with uncommitted entries was last seen at, or -1 when it had none. */
  private long commitSeen = -1;
  private long commitSince;
  /** The committed index this member was last seen short of, or -1 when it had applied all it knew of. */
  private long applyTarget = -1;
  private long applySince;

  ReadinessRule(Duration bound, LongSupplier nanos) {
    this.bound = bound;
    this.nanos = nanos;
  }

  /**
   * The bound for a member tuned with {@code tuning}: its shortest election timeout, as a follower
   * that hears nothing for that long may start an election, but at least half a second, so that a
   * short pause on a busy machine does not count.
   */
  static Duration bound(RaftConfig.Tuning tuning) {
    Duration min = Duration.ofMillis(500);
    return tuning.electionTimeoutMin().compareTo(min) > 0 ? tuning.electionTimeoutMin() : min;
  }

  /** Takes in one look at the division and says whether the member can commit and apply now. */
  synchronized Health observe(RaftProgress p) {
    long now = nanos.getAsLong();
    track(p, now);
    long boundMs = bound.toMillis();
    switch (p.role()) {
      case NONE -> {
        return Health.failing("no Raft leader known: an election is under way, or this member cannot reach a"
            + " majority of the members");
      }
      case FOLLOWER -> {
        if (p.leaderSilence().compareTo(bound) > 0) {
          return Health.failing("no word from the Raft leader " + p.leader() + " for " + p.leaderSilence().toMillis()
              + " ms (more than " + boundMs + " ms): this member is cut off from it, or it is down");
        }
      }
      case LEADER -> {
        long heard = 1 + p.followerSilences().stream().filter(s -> s.compareTo(bound) <= 0).count();
        if (2 * heard <= p.voters()) {
          return Health.failing("this Raft leader heard from only " + heard + " of its " + p.voters()
              + " members in the last " + boundMs + " ms: it cannot commit without a majority");
        }
        if (commitSeen >= 0 && now - commitSince > bound.toNanos()) {
          return Health.failing("this Raft leader cannot commit: its log reaches " + p.lastIndex()
              + " but its commit index has stayed at " + p.commitIndex() + " for " + millis(now - commitSince)
              + " ms (more than " + boundMs + " ms)");
        }
      }
    }
    if (applyTarget >= 0 && now - applySince > bound.toNanos()) {
      return Health.failing("this member lags: it has applied the log up to " + p.appliedIndex() + ", but "
          + applyTarget + " was committed " + millis(now - applySince) + " ms ago (more than " + boundMs + " ms)");
    }
    return Health.OK;
  }

  /** Notes when the commit index last moved and which committed index is being waited for. */
  private void track(RaftProgress p, long now) {
    if (p.role() != RaftProgress.Role.LEADER || p.lastIndex() <= p.commitIndex()) {
      commitSeen = -1;
    } else if (commitSeen != p.commitIndex()) {
      commitSeen = p.commitIndex();
      commitSince = now;
    }
    if (p.appliedIndex() >= p.clusterCommitIndex()) {
      applyTarget = -1;
    } else if (applyTarget < 0 || p.appliedIndex() >= applyTarget) {
      applyTarget = p.clusterCommitIndex();
      applySince = now;
    }
  }

  private static long millis(long nanos) {
    return Duration.ofNanos(nanos).toMillis();
  }
}
