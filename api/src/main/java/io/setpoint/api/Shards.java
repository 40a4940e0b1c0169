package io.setpoint.api;

import io.setpoint.api.v1.HashRange;
import io.setpoint.api.v1.ID;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Shard hashes: where a resource falls when the resources of a type are split among workers by
 * {@link HashRange}s (List and WatchList serve only the ranges asked for). The hash is of the id's
 * tenancy and name, not its type, so resources of name-aligned types share a shard; it is stable
 * across versions and machines, since workers and servers must agree on it.
 */
public final class Shards {
  /** The size of the hash space: hashes run from 0 to {@code SPACE - 1}. */
  public static final long SPACE = 1L << 32;

  private Shards() {}

  /**
   * The shard hash of {@code id}: FNV-1a over the UTF-8 of {@code partition NUL namespace NUL
   * name}, then MurmurHash3's 32-bit finalizer so that nearby names spread over the whole space.
   * From 0 to {@code SPACE - 1}.
   */
  public static long hash(ID id) {
    int h = 0x811c9dc5;
    h = fnv(h, id.getTenancy().getPartition());
    h = fnvByte(h, 0);
    h = fnv(h, id.getTenancy().getNamespace());
    h = fnvByte(h, 0);
    h = fnv(h, id.getName());
    return Integer.toUnsignedLong(fmix(h));
  }

  /**
   * The shard hash of a key that is not a resource, such as a generic loop's key as text: the same
   * FNV-1a and finalizer over its UTF-8. From 0 to {@code SPACE - 1}.
   */
  public static long hash(String key) {
    return Integer.toUnsignedLong(fmix(fnv(0x811c9dc5, key)));
  }

  private static int fmix(int h) {
    h ^= h >>> 16;
    h *= 0x85ebca6b;
    h ^= h >>> 13;
    h *= 0xc2b2ae35;
    h ^= h >>> 16;
    return h;
  }

  private static int fnv(int h, String part) {
    for (byte b : part.getBytes(StandardCharsets.UTF_8)) {
      h = fnvByte(h, b & 0xff);
    }
    return h;
  }

  private static int fnvByte(int h, int b) {
    return (h ^ b) * 0x01000193;
  }

  /** Whether {@code hash} falls in one of {@code ranges}; every hash does when there are none. */
  public static boolean in(long hash, List<HashRange> ranges) {
    if (ranges.isEmpty()) {
      return true;
    }
    for (HashRange r : ranges) {
      if (hash >= r.getStart() && hash < r.getEnd()) {
        return true;
      }
    }
    return false;
  }

  /**
   * Whether the resource {@code id} falls in one of {@code ranges}; with none, every resource does,
   * and no hash is computed (a watch without ranges pays nothing per event).
   */
  public static boolean contains(List<HashRange> ranges, ID id) {
    return ranges.isEmpty() || in(hash(id), ranges);
  }

  /** The range {@code [start, end)}. */
  public static HashRange range(long start, long end) {
    return HashRange.newBuilder().setStart(start).setEnd(end).build();
  }
}
