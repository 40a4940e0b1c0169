package io.setpoint.controller;

import io.setpoint.api.Ids;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Type;
import io.setpoint.controller.cache.Index;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * The {@link DependencyMapper}s controllers need most, after Consul's and controller-tools's, for
 * {@code Controller.Builder.watch}.
 */
public final class Mappers {
  private Mappers() {}

  /**
   * Maps a changed resource of a watched type to the requests of the managed type it affects. Runs
   * on the cache's watch thread, after the cache applied the change, so it may query the cache; it
   * must be quick and must not call the server. For an update it is called with the new state and
   * with the previous one, so what a resource stopped relating to is reconciled too; the queue
   * de-duplicates.
   */
  @FunctionalInterface
  public interface DependencyMapper {
    /** The requests {@code resource}'s change causes; {@code tools} to read the cache. */
    Collection<Request> map(Tools tools, Resource resource);

    /**
     * A transform chain: maps with this mapper, looks each resulting request up in the cache, and
     * maps what it finds with {@code next} (e.g. from an album to its artist to the artist's label).
     */
    default DependencyMapper andThen(DependencyMapper next) {
      return (tools, resource) -> {
        Set<Request> out = new LinkedHashSet<>();
        for (Request request : map(tools, resource)) {
          tools.cache().get(request.id()).ifPresent(found -> out.addAll(next.map(tools, found)));
        }
        return List.copyOf(out);
      };
    }

    /** The requests of this mapper and of {@code other}, without duplicates. */
    default DependencyMapper and(DependencyMapper other) {
      return (tools, resource) -> {
        Set<Request> out = new LinkedHashSet<>(map(tools, resource));
        out.addAll(other.map(tools, resource));
        return new ArrayList<>(out);
      };
    }
  }

  /** The resource's owner, whatever its type. */
  public static DependencyMapper owner() {
    return (tools, resource) ->
        resource.hasOwner() ? List.of(Request.of(resource.getOwner())) : List.of();
  }

  /** The resource's owner when it is of {@code type} (group, version and kind). */
  public static DependencyMapper ownerOfType(Type type) {
    return (tools, resource) ->
        resource.hasOwner() && resource.getOwner().getType().equals(type)
            ? List.of(Request.of(resource.getOwner()))
            : List.of();
  }

  /** The resource of {@code type} with the same tenancy and name (name-aligned types). */
  public static DependencyMapper replaceType(Type type) {
    return (tools, resource) -> List.of(Request.of(
        Ids.of(type, resource.getId().getTenancy(), resource.getId().getName())));
  }

  /** The one resource of {@code type} whose index {@code index} holds the changed resource's key. */
  public static DependencyMapper cacheGet(Type type, String index) {
    return (tools, resource) -> tools.cache()
        .getByIndex(type, index, Index.keyOf(resource.getId()))
        .map(found -> List.of(Request.of(found.getId())))
        .orElse(List.of());
  }

  /** Every resource of {@code type} whose index {@code index} holds the changed resource's key. */
  public static DependencyMapper cacheList(Type type, String index) {
    return (tools, resource) ->
        requests(tools.cache().listByIndex(type, index, Index.keyOf(resource.getId())));
  }

  /**
   * Every resource of {@code type} whose index {@code index} holds a key computed from the changed
   * resource (rather than the changed resource's own key).
   */
  public static DependencyMapper cacheList(Type type, String index, Function<Resource, String> key) {
    return (tools, resource) -> {
      String k = key.apply(resource);
      return k == null ? List.of() : requests(tools.cache().listByIndex(type, index, k));
    };
  }

  /**
   * Every resource of {@code type} whose index {@code index} holds the changed resource's key or
   * one of its {@code /}-separated ancestors.
   */
  public static DependencyMapper cacheParents(Type type, String index) {
    return (tools, resource) ->
        requests(tools.cache().parents(type, index, Index.keyOf(resource.getId())));
  }

  /**
   * Every cached resource of {@code type} whose selector (computed from it by {@code selector})
   * selects the changed resource, like a service selecting its workloads.
   */
  public static DependencyMapper selector(Type type, Function<Resource, Predicate<Resource>> selector) {
    return (tools, resource) -> {
      List<Request> out = new ArrayList<>();
      for (Resource candidate : tools.cache().list(type)) {
        if (selector.apply(candidate).test(resource)) {
          out.add(Request.of(candidate.getId()));
        }
      }
      return out;
    };
  }

  /** The requests of every mapper, without duplicates. */
  public static DependencyMapper multi(DependencyMapper... mappers) {
    return Arrays.stream(mappers).reduce((tools, resource) -> List.of(), DependencyMapper::and);
  }

  private static List<Request> requests(List<Resource> resources) {
    List<Request> out = new ArrayList<>(resources.size());
    for (Resource r : resources) {
      out.add(Request.of(r.getId()));
    }
    return out;
  }
}
