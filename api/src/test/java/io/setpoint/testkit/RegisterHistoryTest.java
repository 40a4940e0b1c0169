package io.setpoint.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.setpoint.testkit.RegisterHistory.Result;
import org.junit.jupiter.api.Test;

/** The linearizability checker accepts what it must and rejects what it must. */
class RegisterHistoryTest {
  @Test
  void sequentialHistoriesThatFollowTheRegisterAreLinearizable() {
    RegisterHistory h = new RegisterHistory();
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
    RegisterHistory h = new RegisterHistory();
    h.cas(0, 1, Result.OK, null, "a");
    h.cas(2, 3, Result.OK, "a", "b");
    h.read(4, 5, "a");
    assertThat(h.isLinearizable()).isFalse();
  }

  @Test
  void twoSuccessfulSwapsFromTheSameValueAreNot() {
    RegisterHistory h = new RegisterHistory();
    h.cas(0, 1, Result.OK, null, "a");
    h.cas(2, 10, Result.OK, "a", "b");
    h.cas(3, 11, Result.OK, "a", "c");
    assertThat(h.isLinearizable()).isFalse();
  }

  @Test
  void overlappingOperationsMayTakeEitherOrder() {
    RegisterHistory h = new RegisterHistory();
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
    RegisterHistory h = new RegisterHistory();
    h.cas(0, 1, Result.OK, null, "a");
    h.cas(2, 3, Result.FAILED, "a", "x");
    assertThat(h.isLinearizable()).isFalse();
  }

  @Test
  void anUnknownSwapMayHaveTakenEffectLaterOrNever() {
    RegisterHistory took = new RegisterHistory();
    took.cas(0, 1, Result.OK, null, "a");
    took.cas(2, 3, Result.UNKNOWN, "a", "b");
    took.read(4, 5, "a");
    took.read(6, 7, "b");
    assertThat(took.isLinearizable()).as("it took effect between the reads").isTrue();

    RegisterHistory never = new RegisterHistory();
    never.cas(0, 1, Result.OK, null, "a");
    never.cas(2, 3, Result.UNKNOWN, "a", "b");
    never.cas(4, 5, Result.OK, "a", "c");
    never.read(6, 7, "c");
    assertThat(never.isLinearizable()).as("it never took effect").isTrue();

    RegisterHistory before = new RegisterHistory();
    before.cas(0, 1, Result.OK, null, "a");
    before.read(2, 3, "b");
    before.cas(4, 5, Result.UNKNOWN, "a", "b");
    assertThat(before.isLinearizable()).as("it cannot take effect before it was called").isFalse();
  }
}
