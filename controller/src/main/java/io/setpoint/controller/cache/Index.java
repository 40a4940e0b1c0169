package io.setpoint.controller.cache;

import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Reference;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Tenancy;
import io.setpoint.api.v1.Type;
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
   * {@code resource} points at, keyed by {@link #keyOf(Reference)}. A
   * controller records what it bound a resource to in its conditions; a mapper then finds, from a
   * changed referenced resource, everything bound to it.
   */
  public static Index boundReferences(String name) {
    return new Index(name, resource -> resource.getStatusMap().values().stream()
        .flatMap(status -> status.getConditionsList().stream())
        .filter(condition -> condition.hasResource())
        .map(condition -> keyOf(condition.getResource()))
        .distinct()
        .toList());
  }

  /**
   * The canonical key of the resource {@code id} names: group, kind, tenancy and name, without
   * version or uid, so that it equals the key of a {@link Reference} to it and indexes can join on
   * either (as {@link #boundReferences} and {@code Mappers.cacheList} do).
   */
  public static String keyOf(ID id) {
    return keyOf(id.getType(), id.getTenancy(), id.getName());
  }

  /** The canonical key of the resource {@code ref} points at; see {@link #keyOf(ID)}. */
  public static String keyOf(Reference ref) {
    return keyOf(ref.getType(), ref.getTenancy(), ref.getName());
  }

  private static String keyOf(Type type, Tenancy tenancy, String name) {
    return type.getGroup() + "." + type.getKind() + "/" + tenancy.getPartition() + "/"
        + tenancy.getNamespace() + "/" + name;
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
