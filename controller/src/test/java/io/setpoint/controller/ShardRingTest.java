package io.setpoint.controller;

import static org.assertj.core.api.Assertions.assertThat;

import io.setpoint.api.Shards;
import io.setpoint.api.v1.HashRange;
import java.util.BitSet;
import java.util.List;
import org.junit.jupiter.api.Test;

class ShardRingTest {
  private static final List<String> THREE = List.of("a", "b", "c");
  private static final List<String> FOUR = List.of("a", "b", "c", "d");

  @Test
  void everySlotHasExactlyOneOwner() {
    BitSet union = new BitSet();
    int total = 0;
    for (String m : FOUR) {
      BitSet owned = ShardRing.owned(FOUR, m);
      total += owned.cardinality();
      union.or(owned);
    }
    assertThat(total).isEqualTo(ShardRing.SLOTS);
    assertThat(union.cardinality()).isEqualTo(ShardRing.SLOTS);
  }

  @Test
  void aJoiningMemberTakesAboutItsShareAndOnlyFromOthersNothingMovesBetweenThem() {
    BitSet joined = ShardRing.owned(FOUR, "d");
    assertThat(joined.cardinality()).isBetween(ShardRing.SLOTS / 4 - 40, ShardRing.SLOTS / 4 + 40);
    for (String m : THREE) {
      BitSet before = ShardRing.owned(THREE, m);
      BitSet after = ShardRing.owned(FOUR, m);
      BitSet gained = (BitSet) after.clone();
      gained.andNot(before);
      assertThat(gained.isEmpty()).as("%s gains nothing when d joins", m).isTrue();
      BitSet lost = (BitSet) before.clone();
      lost.andNot(after);
      BitSet lostElsewhere = (BitSet) lost.clone();
      lostElsewhere.andNot(joined);
      assertThat(lostElsewhere.isEmpty()).as("what %s loses goes to d", m).isTrue();
    }
  }

  @Test
  void aLeavingMembersSlotsAreSpreadOverTheRestAndNoOtherSlotMoves() {
    for (String m : THREE) {
      BitSet before = ShardRing.owned(FOUR, m);
      BitSet after = ShardRing.owned(THREE, m);
      BitSet lost = (BitSet) before.clone();
      lost.andNot(after);
      assertThat(lost.isEmpty()).as("%s keeps its slots when d leaves", m).isTrue();
      BitSet gained = (BitSet) after.clone();
      gained.andNot(before);
      assertThat(gained.cardinality()).as("%s takes some of d's slots", m).isPositive();
    }
  }

  @Test
  void aNonMemberOwnsNothingAndASoleMemberOwnsAll() {
    assertThat(ShardRing.owned(THREE, "d").isEmpty()).isTrue();
    assertThat(ShardRing.owned(List.of("solo"), "solo").cardinality()).isEqualTo(ShardRing.SLOTS);
    assertThat(ShardRing.ranges(ShardRing.owned(List.of("solo"), "solo")))
        .containsExactly(Shards.range(0, Shards.SPACE));
  }

  @Test
  void rangesMergeAdjacentSlotsAndCoverExactlyTheSlotsHashes() {
    BitSet slots = new BitSet();
    slots.set(0, 3);
    slots.set(10);
    slots.set(ShardRing.SLOTS - 1);
    List<HashRange> ranges = ShardRing.ranges(slots);
    long width = Shards.SPACE / ShardRing.SLOTS;
    assertThat(ranges).containsExactly(
        Shards.range(0, 3 * width), Shards.range(10 * width, 11 * width), Shards.range((ShardRing.SLOTS - 1) * width, Shards.SPACE));
    for (long hash : new long[] {0, 3 * width - 1, 3 * width, 10 * width, 11 * width, Shards.SPACE - 1}) {
      assertThat(Shards.in(hash, ranges)).as("hash %d", hash).isEqualTo(slots.get(ShardRing.slotOf(hash)));
    }
  }

  @Test
  void ownersArePinnedSoEveryVersionAndMachineAgrees() {
    // Members of different builds must compute the same owners; a change here splits a group.
    assertThat(ShardRing.owned(THREE, "a").stream().limit(8).toArray()).containsExactly(4, 5, 6, 11, 19, 21, 26, 27);
    assertThat(ShardRing.owned(THREE, "a").cardinality()).isEqualTo(322);
    assertThat(ShardRing.owned(THREE, "b").cardinality()).isEqualTo(348);
  }
}
