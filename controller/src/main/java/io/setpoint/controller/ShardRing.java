package io.setpoint.controller;

import io.setpoint.api.Shards;
import io.setpoint.api.v1.HashRange;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/**
 * How a shard group splits the hash space: into {@link #SLOTS} equal slots, each owned by the
 * member that scores highest for it (rendezvous hashing, a consistent hash). A member joining takes
 * about 1/N of the slots, from every other member alike; a member leaving hands only its own slots
 * on, spread over the rest. 1,024 slots keep the shares within a few percent of 1/N (the busiest
 * member sets the pace) while the ranges of a share stay well under what a request may carry.
 */
final class ShardRing {
  static final int SLOTS = 1024;
  private static final int SLOT_BITS = 10;
  private static final long SLOT_WIDTH = Shards.SPACE >>> SLOT_BITS;

  private ShardRing() {}

  /** The slot a shard hash falls in. */
  static int slotOf(long hash) {
    return (int) (hash >>> (32 - SLOT_BITS));
  }

  /** The slots {@code member} owns when {@code view} are the members. */
  static BitSet owned(List<String> view, String member) {
    BitSet owned = new BitSet(SLOTS);
    if (!view.contains(member)) {
      return owned;
    }
    long[] seeds = new long[view.size()];
    for (int m = 0; m < seeds.length; m++) {
      seeds[m] = seed(view.get(m));
    }
    for (int slot = 0; slot < SLOTS; slot++) {
      int best = 0;
      long bestScore = Long.MIN_VALUE;
      for (int m = 0; m < seeds.length; m++) {
        long score = mix(seeds[m] + slot * 0x9E3779B97F4A7C15L);
        // Names break ties, so every member computes the same owner.
        if (score > bestScore || (score == bestScore && view.get(m).compareTo(view.get(best)) < 0)) {
          best = m;
          bestScore = score;
        }
      }
      if (view.get(best).equals(member)) {
        owned.set(slot);
      }
    }
    return owned;
  }

  /** The hash ranges {@code slots} cover, adjacent slots merged into one range. */
  static List<HashRange> ranges(BitSet slots) {
    List<HashRange> out = new ArrayList<>();
    for (int start = slots.nextSetBit(0); start >= 0; ) {
      int end = slots.nextClearBit(start);
      out.add(Shards.range(start * SLOT_WIDTH, Math.min(end, SLOTS) * SLOT_WIDTH));
      start = end >= SLOTS ? -1 : slots.nextSetBit(end);
    }
    return out;
  }

  /** A member name's 64-bit seed (FNV-1a over its chars), the same in every JVM. */
  private static long seed(String member) {
    long h = 0xcbf29ce484222325L;
    for (int i = 0; i < member.length(); i++) {
      h = (h ^ member.charAt(i)) * 0x100000001b3L;
    }
    return h;
  }

  /** MurmurHash3's 64-bit finalizer. */
  private static long mix(long h) {
    h ^= h >>> 33;
    h *= 0xff51afd7ed558ccdL;
    h ^= h >>> 33;
    h *= 0xc4ceb9fe1a85ec53L;
    h ^= h >>> 33;
    return h;
  }
}
