package io.setpoint.controller.cache;

import io.setpoint.api.v1.Resource;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * A named secondary index over one type's cached resources: each resource maps to zero, one or
 * several string keys. Build keys from several parts with {@link #key(Object...)}.
 *
 * <pre>{@code
 * Index.of("byLabel", artist -> decode(artist).getLabel())          // single-valued
 * Index.multi("byMember", artist -> decode(artist).getGroupMembersMap().keySet())
 * }</pre>
 */
public record Index(String name, Function<Resource, Collection<String>> keys) {
  public Index {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(keys, "keys");
    if (name.isEmpty()) {
      throw new IllegalArgumentException("an index needs a name");
    }
  }

  /** A single-valued index; a null or empty key leaves the resource out. */
  public static Index of(String name, Function<Resource, String> key) {
    return new Index(name, resource -> {
      String k = key.apply(resource);
      return k == null || k.isEmpty() ? List.of() : List.of(k);
    });
  }

  /** A multi-valued index. */
  public static Index multi(String name, Function<Resource, Collection<String>> keys) {
    return new Index(name, keys);
  }

  /**
   * The "bound references" index (see docs/controllers.md): every resource a status condition of
   * {@code resource} points at, keyed by {@link Keys#of(io.setpoint.api.v1.Reference)}. A
   * controller records what it bound a resource to in its conditions; a mapper then finds, from a
   * changed referenced resource, everything bound to it.
   */
  public static Index boundReferences(String name) {
    return new Index(name, resource -> resource.getStatusMap().values().stream()
        .flatMap(status -> status.getConditionsList().stream())
        .filter(condition -> condition.hasResource())
        .map(condition -> Keys.of(condition.getResource()))
        .distinct()
        .toList());
  }

  /** Joins parts into one index key. */
  public static String key(Object... parts) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < parts.length; i++) {
      if (i > 0) {
        out.append('/');
      }
      out.append(parts[i]);
    }
    return out.toString();
  }
}
