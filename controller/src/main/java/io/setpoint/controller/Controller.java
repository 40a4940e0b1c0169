package io.setpoint.controller;

import io.setpoint.api.Types;
import io.setpoint.api.v1.Type;
import io.setpoint.controller.cache.Index;
import io.setpoint.controller.cache.Query;
import io.setpoint.controller.mapper.DependencyMapper;
import io.setpoint.controller.predicate.Predicates;
import io.setpoint.controller.cache.ResourceEvent;
import io.setpoint.controller.internal.ControllerSpec;
import io.setpoint.controller.internal.ControllerSpec.SourceBinding;
import io.setpoint.controller.internal.ControllerSpec.TypeIndex;
import io.setpoint.controller.internal.ControllerSpec.WatchedType;
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
 * io.setpoint.controller.manager.Manager}.
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
  static {
    ControllerSpec.reader(c -> c.spec);
  }

  private final ControllerSpec spec;

  private Controller(ControllerSpec spec) {
    this.spec = spec;
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

    /** Cancels a reconcile that runs longer than {@code timeout} (default zero: no timeout). */
    public Builder reconcileTimeout(Duration timeout) {
      if (timeout.isNegative()) {
        throw new IllegalArgumentException("reconcileTimeout must not be negative, was " + timeout);
      }
      this.reconcileTimeout = timeout;
      return this;
    }

    /** Sets the reconciler and builds the controller. */
    public Controller reconciler(Reconciler reconciler) {
      Objects.requireNonNull(reconciler, "reconciler");
      String controllerName = name != null ? name : Types.format(managedType).toLowerCase(java.util.Locale.ROOT);
      return new Controller(new ControllerSpec(controllerName, managedType, watches, indexes, queries, sources,
          filter, initializer, placement, backoffBase, backoffMax, rateLimit, resync, concurrency, reconcileTimeout,
          reconciler));
    }
  }
}
