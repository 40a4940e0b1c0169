package io.setpoint.storage.raft;

import static org.assertj.core.api.Assertions.assertThat;

import io.setpoint.storage.Health;
import io.setpoint.storage.raft.RaftProgress.Role;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** {@link ReadinessRule}, driven by a clock moved by hand. */
class ReadinessRuleTest {
  private static final Duration BOUND = Duration.ofSeconds(1);
  private static final Duration HEARD = Duration.ofMillis(100);

  private final AtomicLong now = new AtomicLong(12_345);
  private final ReadinessRule rule = new ReadinessRule(BOUND, now::get);

  private void pass(Duration d) {
    now.addAndGet(d.toNanos());
  }

  private static RaftProgress follower(long commit, long applied, long clusterCommit, Duration silence) {
    return new RaftProgress(Role.FOLLOWER, "n1", commit, applied, commit, clusterCommit, silence, List.of(), 3);
  }

  private static RaftProgress leader(long commit, long applied, long last, Duration... followers) {
    return new RaftProgress(Role.LEADER, "n1", commit, applied, last, commit, Duration.ZERO, List.of(followers), 3);
  }

  @Test
  void aMemberThatKeepsUpIsReady() {
    assertThat(rule.observe(follower(10, 10, 10, HEARD))).isEqualTo(Health.OK);
    assertThat(rule.observe(leader(10, 10, 10, HEARD, HEARD))).isEqualTo(Health.OK);
  }

  @Test
  void withoutALeaderAMemberFailsAtOnce() {
    Health health = rule.observe(new RaftProgress(Role.NONE, null, 10, 10, 10, 10, Duration.ZERO, List.of(), 3));
    assertThat(health.ok()).isFalse();
    assertThat(health.reason()).startsWith("no Raft leader known");
  }

  @Test
  void aFollowerFailsOnceItsLeaderIsSilentForLongerThanTheBound() {
    assertThat(rule.observe(follower(10, 10, 10, BOUND)).ok()).isTrue();
    Health silent = rule.observe(follower(10, 10, 10, BOUND.plusMillis(1)));
    assertThat(silent.ok()).isFalse();
    assertThat(silent.reason()).contains("no word from the Raft leader n1 for 1001 ms");

    assertThat(rule.observe(follower(10, 10, 10, HEARD))).as("heard from again").isEqualTo(Health.OK);
  }

  @Test
  void aMemberFailsWhenAnIndexKnownCommittedIsNotAppliedWithinTheBound() {
    assertThat(rule.observe(follower(10, 9, 12, HEARD)).ok()).isTrue();
    pass(BOUND);
    assertThat(rule.observe(follower(12, 9, 12, HEARD)).ok()).as("exactly the bound").isTrue();
    pass(Duration.ofMillis(1));
    Health stuck = rule.observe(follower(12, 9, 12, HEARD));
    assertThat(stuck.ok()).isFalse();
    assertThat(stuck.reason()).contains("applied the log up to 9, but 12 was committed 1001 ms ago");

    assertThat(rule.observe(follower(12, 12, 12, HEARD))).as("caught up").isEqualTo(Health.OK);
  }

  @Test
  void applyingBehindAMovingCommitIndexIsReadyWhileEachIndexIsAppliedWithinTheBound() {
    long commit = 10;
    for (int i = 0; i < 20; i++) {
      long applied = commit - 5;
      commit += 10;
      // Each look finds the member past what it was short of at the previous one, 600 ms before.
      assertThat(rule.observe(follower(commit, applied + 10, commit, HEARD))).as("look %d", i).isEqualTo(Health.OK);
      pass(Duration.ofMillis(600));
    }
  }

  @Test
  void theLeadersReportedCommitIndexCountsForAFollowerBehindIt() {
    rule.observe(follower(10, 10, 50, HEARD));
    pass(BOUND.plusMillis(1));
    Health behind = rule.observe(follower(10, 10, 50, HEARD));
    assertThat(behind.ok()).isFalse();
    assertThat(behind.reason()).contains("this member lags", "up to 10, but 50");
  }

  @Test
  void aLeaderWhoseCommitIndexStaysBehindItsLogFails() {
    assertThat(rule.observe(leader(10, 10, 11, HEARD, HEARD)).ok()).isTrue();
    pass(BOUND.plusMillis(1));
    Health stalled = rule.observe(leader(10, 10, 11, HEARD, HEARD));
    assertThat(stalled.ok()).isFalse();
    assertThat(stalled.reason()).contains("cannot commit: its log reaches 11 but its commit index has stayed at 10 for 1001 ms");

    assertThat(rule.observe(leader(11, 11, 12, HEARD, HEARD))).as("it committed, and waits again").isEqualTo(Health.OK);
    pass(BOUND);
    assertThat(rule.observe(leader(11, 11, 12, HEARD, HEARD))).isEqualTo(Health.OK);
  }

  @Test
  void aLeaderWithEverythingCommittedIsReadyHoweverLongItsCommitIndexStays() {
    rule.observe(leader(10, 10, 10, HEARD, HEARD));
    pass(Duration.ofMinutes(5));
    assertThat(rule.observe(leader(10, 10, 10, HEARD, HEARD))).isEqualTo(Health.OK);
  }

  @Test
  void aLeaderThatHearsFromNoMajorityFails() {
    assertThat(rule.observe(leader(10, 10, 10, HEARD, BOUND.plusMillis(1))).ok()).as("itself and one of two").isTrue();
    Health alone = rule.observe(leader(10, 10, 10, BOUND.plusMillis(1), Duration.ofSeconds(5)));
    assertThat(alone.ok()).isFalse();
    assertThat(alone.reason()).contains("heard from only 1 of its 3 members in the last 1000 ms");
  }

  @Test
  void theBoundIsTheShortestElectionTimeoutButAtLeastHalfASecond() {
    assertThat(ReadinessRule.bound(RaftConfig.Tuning.DEFAULT)).isEqualTo(Duration.ofSeconds(1));
    assertThat(ReadinessRule.bound(TestCluster.FAST)).isEqualTo(Duration.ofMillis(500));
  }
}
