package io.setpoint.controller;

import io.setpoint.api.v1.Resource;
import io.setpoint.controller.cache.Index;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * The cached resources of one type, with that type's indexes. One thread (the type's informer)
 * writes; any thread reads. Each resource is held once, however many controllers and indexes use it.
 */
final class TypeStore {
  private final ConcurrentSkipListMap<String, Resource> byKey = new ConcurrentSkipListMap<>();
  private final Map<String, IndexTable> indexes = new ConcurrentHashMap<>();

  /** Adds an index and fills it from what is cached; a no-op for a name already present. */
  synchronized void addIndex(Index index) {
    if (indexes.containsKey(index.name())) {
      return;
    }
    IndexTable table = new IndexTable(index);
    byKey.forEach(table::put);
    indexes.put(index.name(), table);
  }

  boolean hasIndex(String name) {
    return indexes.containsKey(name);
  }

  /** Stores {@code resource}, returning what it replaced. */
  synchronized Resource put(Resource resource) {
    String key = Index.keyOf(resource.getId());
    Resource old = byKey.put(key, resource);
    for (IndexTable table : indexes.values()) {
      if (old != null) {
        table.remove(key, old);
      }
      table.put(key, resource);
    }
    return old;
  }

  /** Removes the resource stored under {@code key}, returning it. */
  synchronized Resource remove(String key) {
    Resource old = byKey.remove(key);
    if (old != null) {
      for (IndexTable table : indexes.values()) {
        table.remove(key, old);
      }
    }
    return old;
  }

  Resource get(String key) {
    return byKey.get(key);
  }

  List<Resource> all() {
    return new ArrayList<>(byKey.values());
  }

  Set<String> keys() {
    return byKey.keySet();
  }

  int size() {
    return byKey.size();
  }

  List<Resource> byIndex(String index, String value) {
    return table(index).lookup(value, byKey);
  }

  /**
   * The resources whose index holds {@code value} or one of its ancestors: its prefixes that end
   * where a {@code /}-separated segment ends. Each resource once, nearest ancestor first.
   */
  List<Resource> parents(String index, String value) {
    IndexTable table = table(index);
    Map<String, Resource> out = new java.util.LinkedHashMap<>();
    for (int end = value.length(); end > 0; end = value.lastIndexOf('/', end - 1)) {
      for (Resource r : table.lookup(value.substring(0, end), byKey)) {
        out.putIfAbsent(Index.keyOf(r.getId()), r);
      }
    }
    return new ArrayList<>(out.values());
  }

  private IndexTable table(String index) {
    IndexTable table = indexes.get(index);
    if (table == null) {
      throw new IllegalArgumentException("no index named \"" + index + "\"; declare it with Controller.Builder.index");
    }
    return table;
  }

  /** One index: index key to the resource keys holding it. */
  private static final class IndexTable {
    private final Index index;
    private final Map<String, Set<String>> entries = new ConcurrentHashMap<>();

    IndexTable(Index index) {
      this.index = index;
    }

    void put(String key, Resource resource) {
      for (String value : values(resource)) {
        entries.computeIfAbsent(value, v -> ConcurrentHashMap.newKeySet()).add(key);
      }
    }

    void remove(String key, Resource resource) {
      for (String value : values(resource)) {
        entries.computeIfPresent(value, (v, keys) -> {
          keys.remove(key);
          return keys.isEmpty() ? null : keys;
        });
      }
    }

    List<Resource> lookup(String value, NavigableMap<String, Resource> resources) {
      Set<String> keys = entries.get(value);
      if (keys == null) {
        return List.of();
      }
      List<Resource> out = new ArrayList<>(keys.size());
      for (String key : keys) {
        Resource r = resources.get(key);
        if (r != null) {
          out.add(r);
        }
      }
      return out;
    }

    private Collection<String> values(Resource resource) {
      Collection<String> values = index.keys().apply(resource);
      return values == null ? List.of() : values;
    }
  }
}
