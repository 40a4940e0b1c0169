package io.setpoint.storage.engine;

import java.util.Collection;
import java.util.NavigableMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * Every key's version chain, kept twice: in key order for listings, and hashed for the point
 * lookups of every write and read. Changed by the index's single writer, read from any thread.
 */
final class VersionChains {
  /** Every key's version chain, in key order, for listings. */
  private final ConcurrentSkipListMap<String, Chain> sorted = new ConcurrentSkipListMap<>();
  /**
   * The same chains by key: a hash probe instead of a descent through the sorted map, whose string
   * comparisons were most of the cost of applying a write to a large store. Neither map changes
   * when a key is updated, only when one is added or its last tombstone leaves the history.
   */
  private final ConcurrentHashMap<String, Chain> byKey;

  /** @param expectedKeys how many keys the chains will hold soon, so the hash table need not grow to them */
  VersionChains(int expectedKeys) {
    byKey = new ConcurrentHashMap<>(Math.max(16, expectedKeys));
  }

  /** The chain of {@code key}, or null when the store holds none. */
  Chain get(String key) {
    return byKey.get(key);
  }

  /** The newest entry of {@code key}, or null when the store holds none. */
  Entry newest(String key) {
    Chain chain = byKey.get(key);
    return chain == null ? null : chain.newest;
  }

  /** How many keys have a chain, without walking them. */
  long size() {
    return byKey.mappingCount();
  }

  boolean contains(String key) {
    return byKey.containsKey(key);
  }

  /** Makes {@code head} its key's newest entry: in {@code chain}, or in a new one for a new key. */
  void put(Chain chain, Entry head) {
    if (chain != null) {
      chain.newest = head;
      return;
    }
    Chain added = new Chain(head);
    sorted.put(head.key, added);
    byKey.put(head.key, added);
  }

  /** Forgets the key of {@code evicted}, a tombstone leaving the history, if nothing came after it. */
  void removeIfNewest(Entry evicted) {
    Chain chain = evicted.deleted ? byKey.get(evicted.key) : null;
    if (chain != null && chain.newest == evicted) {
      sorted.remove(evicted.key, chain);
      byKey.remove(evicted.key, chain);
    }
  }

  /** Every chain, in key order. */
  Collection<Chain> all() {
    return sorted.values();
  }

  /** The chains of the keys that start with {@code prefix}, in key order. */
  NavigableMap<String, Chain> range(String prefix) {
    return sorted.subMap(prefix, true, StoreKeys.rangeEnd(prefix), false);
  }

  /** The chains of the keys after {@code lastKey} that start with {@code prefix}, in key order. */
  NavigableMap<String, Chain> after(String lastKey, String prefix) {
    return sorted.subMap(lastKey, false, StoreKeys.rangeEnd(prefix), false);
  }

  /**
   * One key's versions: its newest entry, from which older ones chain back. Updating a key swaps
   * the newest entry here; readers that found the chain in either map see the swap.
   */
  static final class Chain {
    volatile Entry newest;

    Chain(Entry newest) {
      this.newest = newest;
    }
  }
}
