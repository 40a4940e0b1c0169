package io.setpoint.controller;

import com.google.protobuf.Message;
import io.setpoint.api.Types;
import io.setpoint.api.v1.HashRange;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Scope;
import io.setpoint.api.v1.Type;
import io.setpoint.api.v1.TypeInfo;
import io.setpoint.client.SetpointClient;
import io.setpoint.controller.cache.Cache;
import io.setpoint.controller.cache.Index;
import io.setpoint.controller.cache.ResourceEvent;
import io.setpoint.controller.time.Ticker;
import io.setpoint.resource.Decoded;
import io.setpoint.resource.Hooks;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The cache a manager's controllers share: one {@link TypeStore} and one watch per type, however
 * many controllers watch it. Listeners of a type are called on that type's watch thread, after the
 * store applied the change.
 */
final class SharedCache implements Cache, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(SharedCache.class);
  private final SetpointClient client;
  private final Map<Type, Scope> scopes = new ConcurrentHashMap<>();
  private final Map<Type, TypeStore> stores = new ConcurrentHashMap<>();
  private final Map<Type, Informer> informers = new ConcurrentHashMap<>();
  private final Map<Type, List<Consumer<ResourceEvent>>> listeners = new ConcurrentHashMap<>();
  private final Map<String, Cache.Query> queries = new ConcurrentHashMap<>();
  /** The hash ranges held of restricted types; a type not here is held whole. */
  private final Map<Type, List<HashRange>> restrictions = new ConcurrentHashMap<>();

  private final Ticker ticker;
  private volatile FailureListener failures = (type, where, cause) -> {};

  /**
   * Told when the cache's machinery fails and recovers by itself: a watch that failed other than
   * by the server ending it (the cache lists afresh, after a backoff), or a listener that threw
   * (the others still get the event).
   */
  @FunctionalInterface
  interface FailureListener {
    /** {@code where} failed for {@code type}: "watch", or "listener". */
    void failed(Type type, String where, Throwable cause);
  }

  /** A cache of what {@code client}'s server stores, filled by one watch per type. */
  SharedCache(SetpointClient client) {
    this(client, Ticker.system());
  }

  /** A cache whose watches back off, after a failure, on {@code ticker}'s time. */
  SharedCache(SetpointClient client, Ticker ticker) {
    this.client = client;
    this.ticker = ticker;
  }

  /** Reports the cache's own failures to {@code listener} (the last one set), to count and show them. */
  void onFailure(FailureListener listener) {
    this.failures = Objects.requireNonNull(listener, "listener");
  }

  /**
   * Starts watching {@code type} (once; later calls do nothing).
   *
   * @throws UnknownTypeException when the server does not serve {@code type}
   */
  void watch(Type type) {
    if (informers.containsKey(type)) {
      return;
    }
    synchronized (restrictions) {
      watchLocked(type);
    }
  }

  private void watchLocked(Type type) {
    informers.computeIfAbsent(type, t -> {
      Informer informer = new Informer(client, t, scope(t), store(t), event -> dispatch(t, event), ticker,
          restrictions.get(t), cause -> failures.failed(t, "watch", cause));
      informer.start();
      return informer;
    });
  }

  /**
   * Holds only the resources of {@code type} whose {@linkplain io.setpoint.api.Shards#hash shard
   * hash} falls in {@code ranges} (none when empty), the server filtering the listing and the
   * watch: a shard's cache. Resources leaving the ranges are dropped without a delete event; those
   * entering come as upserts, and only the ranges added are listed. Waits until the cache holds
   * the new ranges; false on timeout.
   *
   * @throws UnknownTypeException when the server does not serve {@code type}
   */
  boolean restrict(Type type, List<HashRange> ranges, Duration timeout) throws InterruptedException {
    return reshape(type, List.copyOf(ranges), timeout);
  }

  /** Holds all of {@code type} again after {@link #restrict}; waits as it does. */
  boolean unrestrict(Type type, Duration timeout) throws InterruptedException {
    return reshape(type, null, timeout);
  }

  /** Whether {@code type} is held whole, not {@linkplain #restrict restricted} to some ranges. */
  boolean isWhole(Type type) {
    return !restrictions.containsKey(type);
  }

  private boolean reshape(Type type, List<HashRange> ranges, Duration timeout) throws InterruptedException {
    Informer informer;
    long generation;
    // Two threads restricting at once must leave the informer on the ranges recorded last.
    synchronized (restrictions) {
      if (ranges == null) {
        restrictions.remove(type);
      } else {
        restrictions.put(type, ranges);
      }
      informer = informers.get(type);
      generation = informer == null ? 0 : informer.restrict(ranges);
    }
    if (informer == null) {
      return awaitPrimed(List.of(type), timeout);
    }
    return informer.awaitListed(generation, timeout);
  }

  /** Adds {@code index} to {@code type} (filled from what is cached). */
  void addIndex(Type type, Index index) {
    store(type).addIndex(index);
  }

  /** Calls {@code listener} with every change of {@code type} applied after this call. */
  void addListener(Type type, Consumer<ResourceEvent> listener) {
    listeners.computeIfAbsent(type, t -> new CopyOnWriteArrayList<>()).add(listener);
  }

  /** Removes a listener added with {@link #addListener}. */
  void removeListener(Type type, Consumer<ResourceEvent> listener) {
    List<Consumer<ResourceEvent>> list = listeners.get(type);
    if (list != null) {
      list.remove(listener);
    }
  }

  /**
   * Registers a named query.
   *
   * @throws IllegalArgumentException when another query already has that name
   */
  void addQuery(String name, Cache.Query query) {
    if (queries.putIfAbsent(name, query) != null && queries.get(name) != query) {
      throw new IllegalArgumentException("a query named \"" + name + "\" is already registered");
    }
  }

  /**
   * Waits until every type of {@code types} is primed; false on timeout.
   *
   * @throws UnknownTypeException when the server does not serve one of {@code types}
   */
  boolean awaitPrimed(Collection<Type> types, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    for (Type type : types) {
      watch(type);
      Duration left = Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
      if (!informers.get(type).awaitPrimed(left)) {
        return false;
      }
    }
    return true;
  }

  /** Whether every type of {@code types} is watched and primed now. */
  boolean isPrimed(Collection<Type> types) {
    for (Type type : types) {
      Informer informer = informers.get(type);
      if (informer == null || !informer.isPrimed()) {
        return false;
      }
    }
    return true;
  }

  /**
   * Waits until the cache of {@code type} reflects every change of it up to revision {@code
   * atLeast}, such as the version a write returned; true at once when {@code type} is not cached.
   * False on timeout.
   */
  boolean awaitRevision(Type type, long atLeast, Duration timeout) throws InterruptedException {
    Informer informer = informers.get(type);
    return informer == null || informer.awaitRevision(atLeast, timeout);
  }

  /** How many resources of {@code type} are cached. */
  int size(Type type) {
    TypeStore store = stores.get(type);
    return store == null ? 0 : store.size();
  }

  @Override
  public Optional<Resource> get(ID id) {
    TypeStore store = stores.get(id.getType());
    Resource r = store == null ? null : store.get(Index.keyOf(id));
    if (r == null || !r.getId().getType().equals(id.getType())
        || (!id.getUid().isEmpty() && !id.getUid().equals(r.getId().getUid()))) {
      return Optional.empty();
    }
    return Optional.of(r);
  }

  @Override
  public List<Resource> list(Type type) {
    TypeStore store = stores.get(type);
    return store == null ? List.of() : store.all();
  }

  @Override
  public List<Resource> listByIndex(Type type, String index, String key) {
    return watched(type).byIndex(index, key);
  }

  @Override
  public Optional<Resource> getByIndex(Type type, String index, String key) {
    List<Resource> found = listByIndex(type, index, key);
    return found.isEmpty() ? Optional.empty() : Optional.of(found.get(0));
  }

  @Override
  public List<Resource> parents(Type type, String index, String key) {
    return watched(type).parents(index, key);
  }

  @Override
  public List<Resource> query(String name, Object... args) {
    Cache.Query query = queries.get(name);
    if (query == null) {
      throw new IllegalArgumentException("no query named \"" + name + "\"; declare it with Controller.Builder.query");
    }
    return query.run(this, args);
  }

  @Override
  public <T extends Message> List<Decoded<T>> listDecoded(Type type, Class<T> data) {
    List<Resource> resources = list(type);
    List<Decoded<T>> out = new ArrayList<>(resources.size());
    for (Resource r : resources) {
      out.add(Hooks.decode(r, data));
    }
    return out;
  }

  @Override
  public <T extends Message> Optional<Decoded<T>> getDecoded(ID id, Class<T> data) {
    return get(id).map(r -> Hooks.decode(r, data));
  }

  @Override
  public void close() {
    informers.values().forEach(Informer::close);
    informers.clear();
  }

  private void dispatch(Type type, ResourceEvent event) {
    List<Consumer<ResourceEvent>> list = listeners.get(type);
    if (list != null) {
      for (Consumer<ResourceEvent> listener : list) {
        try {
          listener.accept(event);
        } catch (Throwable t) {
          // One listener's failure must not cost the others the event, nor make the watch list
          // afresh: the store already holds this version, so the event would never come again.
          log.error("a listener of the cache of {} failed on revision {}", Types.format(type), event.revision(), t);
          failures.failed(type, "listener", t);
        }
      }
    }
  }

  private TypeStore watched(Type type) {
    TypeStore store = stores.get(type);
    if (store == null) {
      throw new IllegalArgumentException(Types.format(type) + " is not watched by any controller");
    }
    return store;
  }

  private TypeStore store(Type type) {
    return stores.computeIfAbsent(type, t -> new TypeStore());
  }

  private Scope scope(Type type) {
    Scope scope = scopes.get(type);
    if (scope == null) {
      for (TypeInfo info : client.types().getTypesList()) {
        scopes.putIfAbsent(info.getType(), info.getScope());
      }
      scope = scopes.get(type);
    }
    if (scope == null) {
      throw new UnknownTypeException(type, client.address());
    }
    return scope;
  }
}
