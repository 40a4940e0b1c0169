package io.setpoint.controller;

import io.setpoint.api.v1.Resource;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Maps a changed resource of a watched type to the requests of the managed type it affects. Runs
 * on the cache's watch thread, after the cache applied the change, so it may query the cache; it
 * must be quick and must not call the server. For an update it is called with the new state and
 * with the previous one, so what a resource stopped relating to is reconciled too; the queue
 * de-duplicates.
 */
@FunctionalInterface
public interface DependencyMapper {
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
