package io.setpoint.controller;

import io.setpoint.api.Types;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Type;
import io.setpoint.client.SetpointClient;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lets a controller read its own writes: remembers, per key, the newest version each reconcile of
 * that key stored of each type, and before the next reconcile of the key waits (bounded) until the
 * shared cache reflects those versions. Without it a reconcile that follows a write at once, say
 * after a requeue, can read the cache from before the write and redo or undo it.
 */
final class ReadYourWrites<K> {
  private static final Logger log = LoggerFactory.getLogger(ReadYourWrites.class);

  private final SharedCache cache;
  private final Duration bound;
  private final Map<K, Map<Type, Long>> written = new ConcurrentHashMap<>();

  ReadYourWrites(SharedCache cache, Duration bound) {
    this.cache = cache;
    this.bound = bound;
  }

  /** {@code client}, remembering what it stores as written by the reconcile of {@code key}. */
  SetpointClient tracking(SetpointClient client, K key) {
    return client.observingWrites(stored -> record(key, stored));
  }

  private void record(K key, Resource stored) {
    long version;
    try {
      version = Long.parseLong(stored.getVersion());
    } catch (NumberFormatException e) {
      return; // not a store revision: nothing to wait for
    }
    written.computeIfAbsent(key, k -> new ConcurrentHashMap<>()).merge(stored.getId().getType(), version, Math::max);
  }

  /**
   * Waits until the cache shows what the previous reconciles of {@code key} wrote. Gives up after
   * the bound (the reconcile then runs on what the cache has, as it would without this) and logs it.
   */
  void awaitOwnWrites(K key) throws InterruptedException {
    Map<Type, Long> pending = written.remove(key);
    if (pending == null) {
      return;
    }
    for (Map.Entry<Type, Long> write : pending.entrySet()) {
      if (!cache.awaitRevision(write.getKey(), write.getValue(), bound)) {
        log.warn("the cache of {} did not reach revision {} (a write of the previous reconcile of {}) within {}",
            Types.format(write.getKey()), write.getValue(), key, bound);
      }
    }
  }
}
