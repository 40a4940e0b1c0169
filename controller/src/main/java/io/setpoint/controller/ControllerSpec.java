package io.setpoint.controller;

import io.setpoint.api.v1.Type;
import io.setpoint.controller.Controller.Initializer;
import io.setpoint.controller.Controller.Placement;
import io.setpoint.controller.Controller.RateLimit;
import io.setpoint.controller.Mappers.DependencyMapper;
import io.setpoint.controller.cache.Cache.Query;
import io.setpoint.controller.cache.Index;
import io.setpoint.controller.cache.ResourceEvent;
import io.setpoint.controller.queue.Priority;
import io.setpoint.controller.source.Source;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Everything a {@link Controller} was built with, as the engine reads it.
 *
 * @param filter the managed type's event filter
 */
record ControllerSpec(
    String name,
    Type managedType,
    List<WatchedType> watches,
    List<TypeIndex> indexes,
    Map<String, Query> queries,
    List<SourceBinding<?>> sources,
    Predicate<ResourceEvent> filter,
    Initializer initializer,
    Placement placement,
    Duration backoffBase,
    Duration backoffMax,
    RateLimit rateLimit,
    Duration resync,
    int concurrency,
    Duration reconcileTimeout,
    int maxRetries,
    Duration aging,
    Function<Request, String> fairBy,
    Function<ResourceEvent, Priority> eventPriority,
    Reconciler reconciler) {

  /** A secondary type the controller watches, how its changes map to requests, and a filter. */
  record WatchedType(Type type, DependencyMapper mapper, Predicate<ResourceEvent> filter) {}

  /** An index on the cached resources of one type. */
  record TypeIndex(Type type, Index index) {}

  /** A custom event source and how its events map to requests. */
  record SourceBinding<E>(Source<E> source, Function<E, Collection<Request>> mapper) {}

  ControllerSpec {
    watches = List.copyOf(watches);
    indexes = List.copyOf(indexes);
    queries = Map.copyOf(queries);
    sources = List.copyOf(sources);
  }

  /** Every type the controller's cache needs: the managed one, watched ones, indexed ones. */
  List<Type> cachedTypes() {
    List<Type> types = new ArrayList<>();
    types.add(managedType);
    for (WatchedType w : watches) {
      if (!types.contains(w.type())) {
        types.add(w.type());
      }
    }
    for (TypeIndex i : indexes) {
      if (!types.contains(i.type())) {
        types.add(i.type());
      }
    }
    return types;
  }

  /** Adds the controller's indexes and named queries to {@code cache}, where its reconciles read them. */
  void addIndexesAndQueries(SharedCache cache) {
    for (TypeIndex index : indexes) {
      cache.addIndex(index.type(), index.index());
    }
    queries.forEach(cache::addQuery);
  }
}
