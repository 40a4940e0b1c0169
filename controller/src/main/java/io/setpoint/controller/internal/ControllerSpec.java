package io.setpoint.controller.internal;

import io.setpoint.api.v1.Type;
import io.setpoint.controller.Controller;
import io.setpoint.controller.Initializer;
import io.setpoint.controller.Placement;
import io.setpoint.controller.RateLimit;
import io.setpoint.controller.Reconciler;
import io.setpoint.controller.Request;
import io.setpoint.controller.cache.Index;
import io.setpoint.controller.cache.Query;
import io.setpoint.controller.cache.ResourceEvent;
import io.setpoint.controller.mapper.DependencyMapper;
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
 * Everything a {@link Controller} was built with, as the engine reads it. Not API.
 *
 * @param filter the managed type's event filter
 */
public record ControllerSpec(
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

  private static volatile Function<Controller, ControllerSpec> reader;

  /** A secondary type the controller watches, how its changes map to requests, and a filter. */
  public record WatchedType(Type type, DependencyMapper mapper, Predicate<ResourceEvent> filter) {}

  /** An index on the cached resources of one type. */
  public record TypeIndex(Type type, Index index) {}

  /** A custom event source and how its events map to requests. */
  public record SourceBinding<E>(Source<E> source, Function<E, Collection<Request>> mapper) {}

  public ControllerSpec {
    watches = List.copyOf(watches);
    indexes = List.copyOf(indexes);
    queries = Map.copyOf(queries);
    sources = List.copyOf(sources);
  }

  /** What {@code controller} was built with. */
  public static ControllerSpec of(Controller controller) {
    return reader.apply(controller);
  }

  /**
   * Called once, by {@link Controller}'s class initialiser, which alone can read its spec: the
   * engine reaches it through {@link #of} without {@code Controller} exposing it.
   */
  public static void reader(Function<Controller, ControllerSpec> read) {
    if (reader != null) {
      throw new IllegalStateException("the controller spec reader is set already");
    }
    reader = read;
  }

  /** Every type the controller's cache needs: the managed one, watched ones, indexed ones. */
  public List<Type> cachedTypes() {
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
}
