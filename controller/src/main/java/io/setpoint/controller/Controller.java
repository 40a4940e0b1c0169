package io.setpoint.controller;

import com.google.protobuf.Message;
import io.setpoint.api.Types;
import io.setpoint.api.v1.Type;
import io.setpoint.controller.ControllerSpec.SourceBinding;
import io.setpoint.controller.ControllerSpec.TypeIndex;
import io.setpoint.controller.ControllerSpec.WatchedType;
import io.setpoint.controller.Mappers.DependencyMapper;
import io.setpoint.controller.TypedReconciler.Cleaner;
import io.setpoint.controller.cache.Cache.Query;
import io.setpoint.controller.cache.Index;
import io.setpoint.controller.cache.ResourceEvent;
import io.setpoint.controller.predicate.Predicates;
import io.setpoint.controller.queue.Priority;
import io.setpoint.controller.source.Source;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * A controller: the type it manages, what else it watches and how changes there map to its
 * requests, and the reconciler that does the work. Immutable; run it with a {@link
 * io.setpoint.controller.Manager}.
 *
 * <pre>{@code
 * Controller artists = Controller.forType(ARTIST)
 *     .watch(ALBUM, Mappers.ownerOfType(ARTIST))
 *     .filter(Predicates.generationChanged())
 *     .concurrency(4)
 *     .reconciler((ctx, tools, req) -> Result.done());
 * }</pre>
 */
public final class Controller {
  private final ControllerSpec spec;

  private Controller(ControllerSpec spec) {
    this.spec = spec;
  }

  /** Everything it was built with, for the manager that runs it. */
  ControllerSpec spec() {
    return spec;
  }

  /** The controller's name in logs, metrics and the manager's registry. */
  public String name() {
    return spec.name();
  }

  /** The type whose resources the controller reconciles. */
  public Type managedType() {
    return spec.managedType();
  }

  /** Where the controller runs. */
  public Placement placement() {
    return spec.placement();
  }

  @Override
  public String toString() {
    return "Controller[" + spec.name() + ", " + Types.format(spec.managedType()) + ", " + spec.placement() + "]";
  }

  /** Starts building a controller for resources of {@code type}. */
  public static Builder forType(Type type) {
    return new Builder(type);
  }

  /** Where a controller runs in a cluster of servers, or among manager processes. */
  public enum Placement {
    /** One instance, on the server that holds the lease (the Raft leader); moves on failover. */
    SINGLETON,
    /** On every server; such controllers generally should not write resources. */
    EACH_SERVER,
    /**
     * In every member of the manager's shard group ({@code Manager.Builder.sharding}), each member
     * reconciling only its share of the keys and caching only that share of the managed type.
     */
    SHARDED
  }

  /**
   * Runs once when a controller starts, after its cache is primed and before its first reconcile.
   * If it throws, the controller does not start and is restarted (with backoff) later.
   */
  @FunctionalInterface
  public interface Initializer {
    /** Prepares what the reconciles need, with the controller's {@code tools}. */
    void initialize(Tools tools) throws Exception;
  }

  /**
   * A token bucket over a controller's or a {@linkplain io.setpoint.controller.loop.Loop loop}'s
   * retries, on top of each key's own exponential backoff (what controller-runtime's default rate
   * limiter does): {@code perSecond} retries a second across all keys, with up to {@code burst}
   * saved up. A retry waits for the longer of its backoff and its token, so a failure that hits
   * every key at once does not retry them all at once. Set with {@link Builder#rateLimit}.
   *
   * @param perSecond tokens added per second; {@code Double.POSITIVE_INFINITY} for no limit
   * @param burst the most tokens saved up, at least 1
   */
  public record RateLimit(double perSecond, int burst) {
    /** No limit: each key retries after its own backoff only (the default). */
    public static final RateLimit UNLIMITED = new RateLimit(Double.POSITIVE_INFINITY, 1);

    /** Checks the parts. */
    public RateLimit {
      if (!(perSecond > 0) || burst < 1) {
        throw new IllegalArgumentException(
            "a rate limit needs perSecond > 0 and burst >= 1, was " + perSecond + ", " + burst);
      }
    }

    /** {@code perSecond} retries a second, up to {@code burst} at once. */
    public static RateLimit of(double perSecond, int burst) {
      if (Double.isInfinite(perSecond)) {
        throw new IllegalArgumentException("perSecond must be finite (RateLimit.UNLIMITED for no limit)");
      }
      return new RateLimit(perSecond, burst);
    }

    /** Whether it limits anything. */
    public boolean isLimited() {
      return !Double.isInfinite(perSecond);
    }
  }

  /** Builds a {@link Controller}; {@link #reconciler(Reconciler)} ends the chain. */
  public static final class Builder {
    private final Type managedType;
    private String name;
    private final List<WatchedType> watches = new ArrayList<>();
    private final List<TypeIndex> indexes = new ArrayList<>();
    private final Map<String, Query> queries = new java.util.LinkedHashMap<>();
    private final List<SourceBinding<?>> sources = new ArrayList<>();
    private Predicate<ResourceEvent> filter = Predicates.any();
    private Initializer initializer = tools -> {};
    private Placement placement = Placement.SINGLETON;
    private Duration backoffBase = Duration.ofMillis(5);
    private Duration backoffMax = Duration.ofSeconds(1000);
    private RateLimit rateLimit = RateLimit.UNLIMITED;
    private Duration resync = Duration.ofHours(8);
    private int concurrency = 1;
    private Duration reconcileTimeout = Duration.ZERO;
    private int maxRetries = Integer.MAX_VALUE;
    private Duration aging = Duration.ofSeconds(1);
    private Function<Request, String> fairBy = Builder::tenancyOf;
    private Function<ResourceEvent, Priority> eventPriority = event -> Priority.HIGH;
    private String finalizer;

    private Builder(Type managedType) {
      String problem = Types.problem(managedType);
      if (problem != null) {
        throw new IllegalArgumentException("managed type " + Types.format(managedType) + ": " + problem);
      }
      this.managedType = managedType;
    }

    /** The controller's name in logs and metrics (default: the managed type, lower case). */
    public Builder named(String name) {
      if (name == null || name.isBlank()) {
        throw new IllegalArgumentException("a controller name must not be blank");
      }
      this.name = name;
      return this;
    }

    /** Also watches {@code type}; its changes become requests through {@code mapper}. */
    public Builder watch(Type type, DependencyMapper mapper) {
      return watch(type, mapper, Predicates.any());
    }

    /** Also watches {@code type}, reacting only to the events {@code filter} accepts. */
    public Builder watch(Type type, DependencyMapper mapper, Predicate<ResourceEvent> filter) {
      watches.add(new WatchedType(Objects.requireNonNull(type, "type"), Objects.requireNonNull(mapper, "mapper"),
          Objects.requireNonNull(filter, "filter")));
      return this;
    }

    /** Adds an index on the cached resources of {@code type}. */
    public Builder index(Type type, Index index) {
      indexes.add(new TypeIndex(Objects.requireNonNull(type, "type"), Objects.requireNonNull(index, "index")));
      return this;
    }

    /** Registers a named query, run with {@code tools.cache().query(name, args)}. */
    public Builder query(String name, Query query) {
      if (queries.putIfAbsent(Objects.requireNonNull(name, "name"), Objects.requireNonNull(query, "query")) != null) {
        throw new IllegalArgumentException("query \"" + name + "\" is declared twice");
      }
      return this;
    }

    /** Reconciles on events of a non-resource {@code source}, mapped to requests by {@code mapper}. */
    public <E> Builder source(Source<E> source, Function<E, Collection<Request>> mapper) {
      sources.add(new SourceBinding<>(Objects.requireNonNull(source, "source"), Objects.requireNonNull(mapper, "mapper")));
      return this;
    }

    /** Reacts only to the managed type's events that {@code filter} accepts (combined with AND). */
    public Builder filter(Predicate<ResourceEvent> filter) {
      this.filter = this.filter.and(Objects.requireNonNull(filter, "filter"));
      return this;
    }

    /** Runs once before the first reconcile; see {@link Initializer}. */
    public Builder initializer(Initializer initializer) {
      this.initializer = Objects.requireNonNull(initializer, "initializer");
      return this;
    }

    /** Where the controller runs (default {@link Placement#SINGLETON}). */
    public Builder placement(Placement placement) {
      this.placement = Objects.requireNonNull(placement, "placement");
      return this;
    }

    /** Per-request exponential backoff after failures (default 5 ms doubling up to 1000 s). */
    public Builder backoff(Duration base, Duration max) {
      if (base.isNegative() || base.isZero() || max.compareTo(base) < 0) {
        throw new IllegalArgumentException("backoff needs 0 < base <= max, was " + base + ".." + max);
      }
      this.backoffBase = base;
      this.backoffMax = max;
      return this;
    }

    /**
     * Limits retries across all requests to {@code perSecond}, with bursts of up to {@code burst},
     * on top of each request's backoff (default: no limit). See {@link RateLimit}.
     */
    public Builder rateLimit(double perSecond, int burst) {
      this.rateLimit = RateLimit.of(perSecond, burst);
      return this;
    }

    /** Reconciles every resource again this often, minus up to 10% jitter (default 8 h; zero: never). */
    public Builder resync(Duration resync) {
      if (resync.isNegative()) {
        throw new IllegalArgumentException("resync must not be negative, was " + resync);
      }
      this.resync = resync;
      return this;
    }

    /** How many requests reconcile at once (default 1); one request never runs twice at once. */
    public Builder concurrency(int concurrency) {
      if (concurrency < 1) {
        throw new IllegalArgumentException("concurrency must be at least 1, was " + concurrency);
      }
      this.concurrency = concurrency;
      return this;
    }

    /**
     * Gives up on a resource after {@code maxRetries} failed retries in a row (default: retries
     * forever). Giving up ends it as a {@link TerminalException} does, until the resource changes
     * again or its resync comes: the runtime records a {@code RetriesExhausted} warning event on
     * the resource, and its reconcile history says so.
     */
    public Builder maxRetries(int maxRetries) {
      if (maxRetries < 0) {
        throw new IllegalArgumentException("maxRetries must not be negative, was " + maxRetries);
      }
      this.maxRetries = maxRetries;
      return this;
    }

    /**
     * The priority of the requests that changes queue, of the managed type and of watched ones
     * (default {@link Priority#HIGH}: someone waits for them). Give {@link Priority#LOW} to bulk
     * changes nobody waits for; the startup sweep, resyncs and shard moves are always LOW. A
     * function that throws counts as a fault and gives HIGH.
     */
    public Builder priority(Function<ResourceEvent, Priority> priority) {
      this.eventPriority = Objects.requireNonNull(priority, "priority");
      return this;
    }

    /**
     * How long a {@link Priority#LOW} request may wait behind HIGH ones before the two take turns,
     * one each (default 1 s; zero: they take turns from the start), so bulk work is delayed but
     * never starved, and delays a live change by at most one reconcile.
     */
    public Builder aging(Duration aging) {
      if (aging.isNegative()) {
        throw new IllegalArgumentException("aging must not be negative, was " + aging);
      }
      this.aging = aging;
      return this;
    }

    /**
     * Serves ready requests of one priority round-robin across the groups {@code group} names, so
     * a group with thousands of requests delays another group's by at most one per busy group.
     * Default: the resource's partition and namespace, so one busy team's namespace cannot hold up
     * another's. Called once per request queued; must be fast and pure.
     */
    public Builder fairBy(Function<Request, String> group) {
      this.fairBy = Objects.requireNonNull(group, "group");
      return this;
    }

    private static String tenancyOf(Request request) {
      return request.id().getTenancy().getPartition() + "/" + request.id().getTenancy().getNamespace();
    }

    /** Cancels a reconcile that runs longer than {@code timeout} (default zero: no timeout). */
    public Builder reconcileTimeout(Duration timeout) {
      if (timeout.isNegative()) {
        throw new IllegalArgumentException("reconcileTimeout must not be negative, was " + timeout);
      }
      this.reconcileTimeout = timeout;
      return this;
    }

    /**
     * The finalizer a {@link Cleaner} keeps on the controller's resources (default {@code
     * setpoint.io/<controller name>}); changing it leaves the old name on resources reconciled
     * before, for someone to remove.
     */
    public Builder finalizer(String finalizer) {
      if (finalizer == null || finalizer.isBlank() || finalizer.chars().anyMatch(Character::isWhitespace)) {
        throw new IllegalArgumentException("finalizer must be a non-empty name without spaces, was \"" + finalizer + "\"");
      }
      this.finalizer = finalizer;
      return this;
    }

    /**
     * Sets a reconciler that gets each resource decoded as {@code data} (the managed type's message),
     * or learns that it is gone, and builds the controller.
     */
    public <T extends Message> Controller reconciler(Class<T> data, TypedReconciler<T> reconciler) {
      Objects.requireNonNull(data, "data");
      Objects.requireNonNull(reconciler, "reconciler");
      return reconciler(TypedReconcilers.of(data, reconciler, null, null));
    }

    /**
     * As {@link #reconciler(Class, TypedReconciler)}, with a {@code cleaner} that runs once a
     * resource is marked for deletion: the runtime adds the controller's {@linkplain #finalizer
     * finalizer} to each resource before reconciling it, and removes it when the clean-up is done.
     */
    public <T extends Message> Controller reconciler(Class<T> data, TypedReconciler<T> reconciler, Cleaner<T> cleaner) {
      Objects.requireNonNull(data, "data");
      Objects.requireNonNull(reconciler, "reconciler");
      Objects.requireNonNull(cleaner, "cleaner");
      String guard = finalizer != null ? finalizer : "setpoint.io/" + controllerName();
      return reconciler(TypedReconcilers.of(data, reconciler, cleaner, guard));
    }

    private String controllerName() {
      return name != null ? name : Types.format(managedType).toLowerCase(java.util.Locale.ROOT);
    }

    /** Sets the reconciler and builds the controller. */
    public Controller reconciler(Reconciler reconciler) {
      Objects.requireNonNull(reconciler, "reconciler");
      String controllerName = controllerName();
      return new Controller(new ControllerSpec(controllerName, managedType, watches, indexes, queries, sources,
          filter, initializer, placement, backoffBase, backoffMax, rateLimit, resync, concurrency, reconcileTimeout, maxRetries,
          aging, fairBy, eventPriority,
          reconciler));
    }
  }
}
