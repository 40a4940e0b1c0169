package io.setpoint.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.setpoint.testkit.KeyHistory.Result;
import io.setpoint.testkit.KeyHistory.Verdict;
import org.junit.jupiter.api.Test;

/** The linearizability checker accepts what it must and rejects what it must. */
class KeyHistoryTest {
  @Test
  void sequentialHistoriesThatFollowTheRegisterAreLinearizable() {
    KeyHistory h = new KeyHistory();
    h.read(0, 1, null);
    h.cas(2, 3, Result.OK, null, "a");
    h.cas(4, 5, Result.FAILED, null, "b");
    h.read(6, 7, "a");
    h.cas(8, 9, Result.OK, "a", "c");
    h.read(10, 11, "c");
    assertThat(h.isLinearizable()).isTrue();
  }

  @Test
  void aReadOfAnOldValueAfterANewerWriteReturnedIsNot() {
    KeyHistory h = new KeyHistory();
    h.cas(0, 1, Result.OK, null, "a");
    h.cas(2, 3, Result.OK, "a", "b");
    h.read(4, 5, "a");
    assertThat(h.isLinearizable()).isFalse();
  }

  @Test
  void twoSuccessfulSwapsFromTheSameValueAreNot() {
    KeyHistory h = new KeyHistory();
    h.cas(0, 1, Result.OK, null, "a");
    h.cas(2, 10, Result.OK, "a", "b");
    h.cas(3, 11, Result.OK, "a", "c");
    assertThat(h.isLinearizable()).isFalse();
  }

  @Test
  void overlappingOperationsMayTakeEitherOrder() {
    KeyHistory h = new KeyHistory();
    h.cas(0, 1, Result.OK, null, "a");
    // The read overlaps the swap and sees its result; a later read sees it too.
    h.read(2, 10, "b");
    h.cas(3, 9, Result.OK, "a", "b");
    h.read(11, 12, "b");
    // A refused swap overlapping a successful one may be placed after it.
    h.cas(4, 8, Result.FAILED, "a", "x");
    assertThat(h.isLinearizable()).isTrue();
  }

  @Test
  void aRefusedSwapWhileTheRegisterSurelyHeldItsValueIsNot() {
    KeyHistory h = new KeyHistory();
    h.cas(0, 1, Result.OK, null, "a");
    h.cas(2, 3, Result.FAILED, "a", "x");
    assertThat(h.isLinearizable()).isFalse();
  }

  @Test
  void anUnknownSwapMayHaveTakenEffectLaterOrNever() {
    KeyHistory took = new KeyHistory();
    took.cas(0, 1, Result.OK, null, "a");
    took.cas(2, 3, Result.UNKNOWN, "a", "b");
    took.read(4, 5, "a");
    took.read(6, 7, "b");
    assertThat(took.isLinearizable()).as("it took effect between the reads").isTrue();

    KeyHistory never = new KeyHistory();
    never.cas(0, 1, Result.OK, null, "a");
    never.cas(2, 3, Result.UNKNOWN, "a", "b");
    never.cas(4, 5, Result.OK, "a", "c");
    never.read(6, 7, "c");
    assertThat(never.isLinearizable()).as("it never took effect").isTrue();

    KeyHistory before = new KeyHistory();
    before.cas(0, 1, Result.OK, null, "a");
    before.read(2, 3, "b");
    before.cas(4, 5, Result.UNKNOWN, "a", "b");
    assertThat(before.isLinearizable()).as("it cannot take effect before it was called").isFalse();
  }

  @Test
  void blindPutsAndDeletesFollowTheRegister() {
    KeyHistory h = new KeyHistory();
    h.put(0, 1, Result.OK, "a");
    h.read(2, 3, "a");
    h.delete(4, 5, Result.OK);
    h.read(6, 7, null);
    h.cas(8, 9, Result.OK, null, "b");
    h.cas(10, 11, Result.FAILED, null, "c");
    h.put(12, 13, Result.OK, "d");
    h.read(14, 15, "d");
    assertThat(h.check(KeyHistory.DEFAULT_BUDGET)).isEqualTo(Verdict.LINEARIZABLE);
  }

  @Test
  void aReadOfADeletedValueAfterTheDeleteReturnedIsNot() {
    KeyHistory h = new KeyHistory();
    h.put(0, 1, Result.OK, "a");
    h.delete(2, 3, Result.OK);
    h.read(4, 5, "a");
    assertThat(h.check(KeyHistory.DEFAULT_BUDGET)).isEqualTo(Verdict.NOT_LINEARIZABLE);
  }

  @Test
  void aRefusedCreateOnAnAbsentKeyIsNotButOneOverlappingACreateIs() {
    KeyHistory refused = new KeyHistory();
    refused.cas(0, 1, Result.FAILED, null, "a");
    assertThat(refused.isLinearizable()).as("nothing was there to refuse it").isFalse();

    KeyHistory raced = new KeyHistory();
    raced.cas(0, 10, Result.OK, null, "a");
    raced.cas(1, 9, Result.FAILED, null, "b");
    raced.read(11, 12, "a");
    assertThat(raced.isLinearizable()).as("the other create came first").isTrue();
  }

  @Test
  void anUnknownPutOrDeleteMayHaveTakenEffectOrNot() {
    KeyHistory took = new KeyHistory();
    took.put(0, 1, Result.OK, "a");
    took.put(2, 3, Result.UNKNOWN, "b");
    took.delete(4, 5, Result.UNKNOWN);
    took.read(6, 7, "b");
    took.read(8, 9, null);
    assertThat(took.isLinearizable()).as("the put, then the delete, after the first read").isTrue();

    KeyHistory lost = new KeyHistory();
    lost.put(0, 1, Result.OK, "a");
    lost.read(2, 3, null);
    assertThat(lost.isLinearizable()).as("an acknowledged put cannot vanish").isFalse();
  }

  @Test
  void aSearchOverItsBudgetIsUndecided() {
    // Open writes make the search try every subset of them before it can say no: 2^12 here.
    KeyHistory h = new KeyHistory();
    for (int i = 0; i < 12; i++) {
      h.put(i, i + 1, Result.UNKNOWN, "v" + i);
    }
    h.read(100, 101, "v0");
    h.read(102, 103, "impossible");
    assertThat(h.check(10)).isEqualTo(Verdict.UNDECIDED);
    assertThat(h.check(KeyHistory.DEFAULT_BUDGET)).isEqualTo(Verdict.NOT_LINEARIZABLE);
  }
}
