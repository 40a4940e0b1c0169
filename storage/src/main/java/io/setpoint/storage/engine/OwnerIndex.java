package io.setpoint.storage.engine;

import io.setpoint.api.v1.Resource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The keys of the live resources each owner has, anchored to the owner's uid. Changed by the
 * index's single writer, read from any thread.
 */
final class OwnerIndex {
  private final Map<String, Set<String>> keysByOwnerUid = new ConcurrentHashMap<>();

  /** Notes that {@code key} holds {@code resource}, if it has an owner. */
  void add(String key, Resource resource) {
    if (resource.hasOwner()) {
      keysByOwnerUid
          .computeIfAbsent(resource.getOwner().getUid(), uid -> ConcurrentHashMap.newKeySet())
          .add(key);
    }
  }

  /** Notes that {@code key} no longer holds {@code resource}. */
  void remove(String key, Resource resource) {
    if (resource.hasOwner()) {
      keysByOwnerUid.computeIfPresent(
          resource.getOwner().getUid(),
          (uid, keys) -> {
            keys.remove(key);
            return keys.isEmpty() ? null : keys;
          });
    }
  }

  /** The keys noted for the owner of uid {@code ownerUid}, sorted. */
  List<String> keys(String ownerUid) {
    Set<String> keys = keysByOwnerUid.get(ownerUid);
    if (keys == null) {
      return List.of();
    }
    List<String> sorted = new ArrayList<>(keys);
    sorted.sort(null);
    return sorted;
  }
}
