package io.setpoint.controller;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Tracer;
import io.setpoint.api.Ids;
import io.setpoint.api.Types;
import io.setpoint.api.v1.HashRange;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Type;
import io.setpoint.client.SetpointClient;
import io.setpoint.controller.cache.Cache;
import io.setpoint.controller.cache.SharedCache;
import io.setpoint.controller.loop.Loop;
import io.setpoint.controller.time.Ticker;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.LoggerFactory;

/**
 * Runs controllers against one server: one shared cache, one supervisor per controller. SINGLETON
 * controllers run only while {@link Leadership} says this process leads; EACH_SERVER ones always.
 * Several processes running the same controllers elect one leader with {@link
 * Builder#leaderElection}; the leader's SINGLETON controllers write fenced by its lease, and the
 * others keep their caches primed to take over.
 * Several processes may also split the keys of their SHARDED controllers as the members of a
 * {@linkplain Builder#sharding shard group}, each caching and reconciling only its share.
 * Generic {@linkplain #register(Loop) loops} run here too, always, on the same engine.
 * The same code runs inside the agent (over an in-process channel) and in a separate JVM (over
 * gRPC): only the {@link SetpointClient} differs.
 *
 * <pre>{@code
 * try (Manager manager = Manager.builder().client(SetpointClient.connect("localhost:8500")).build()) {
 *   manager.register(artistController);
 *   manager.start();
 *   ...
 * }
 * }</pre>
 */
public final class Manager implements AutoCloseable {
  private final SetpointClient client;
  private final SharedCache cache;
  private final MeterRegistry meters;
  private final Leadership leadership;
  /** The election this manager campaigns in; null when leadership comes from elsewhere. */
  private final LeaseElection election;
  /** The shard group of SHARDED controllers; null when there is none. */
  private final Sharding sharding;
  private final Clock clock;
  private final Ticker ticker;
  /** Null when the manager does not trace. */
  private final Tracer tracer;
  private final Duration drain;
  private final Faults faults;
  private final Map<String, Supervised> controllers = new ConcurrentHashMap<>();
  private final Map<String, Supervisor> loops = new ConcurrentHashMap<>();
  /** Kept across unregistering and registering again: a gauge binds its value holder only once. */
  private final Map<String, ControllerMetrics> metrics = new ConcurrentHashMap<>();
  /** Kept across unregistering and registering again, like the meters. */
  private final Map<String, ReconcileHistory> histories = new ConcurrentHashMap<>();
  /** How long opening shard slots waits for the cache to hold their resources. */
  private static final Duration SHARD_FILL_TIMEOUT = Duration.ofMinutes(2);
  private volatile boolean started;
  private volatile boolean closed;

  private record Supervised(ControllerSpec controller, Supervisor supervisor) {}

  private Manager(Builder b) {
    this.client = b.client;
    this.cache = new SharedCache(b.client, b.ticker);
    this.meters = b.meters;
    this.clock = b.clock;
    this.ticker = b.ticker;
    this.faults = new Faults(b.meters, b.clock);
    cache.onFailure(this::cacheFailed);
    this.tracer = b.openTelemetry == null ? null : b.openTelemetry.getTracer("io.setpoint.controller");
    this.election = b.election == null ? null : b.election.build(b.client, b.ticker, b.clock, faults);
    this.leadership = election != null ? election : b.leadership;
    // A leader that steps down must have stopped its controllers before a standby can take over.
    this.drain = election != null && election.stepDownBudget().compareTo(b.drain) < 0 ? election.stepDownBudget() : b.drain;
    leadership.onChange(this::placeAll);
    this.sharding = b.sharding == null ? null : b.sharding.build(b.client, b.ticker, b.clock, faults);
    if (sharding != null) {
      sharding.listener(new ShardListener());
    }
  }

  /** Fills the shard's caches before its slots open, and places the controllers on joining or leaving. */
  private final class ShardListener implements Sharding.Listener {
    @Override
    public void prepare(List<HashRange> ranges) throws InterruptedException {
      for (Type type : shardOnlyTypes()) {
        if (!cache.restrict(type, ranges, SHARD_FILL_TIMEOUT)) {
          LoggerFactory.getLogger(Manager.class).warn("the cache of {} did not fill within {}",
              Types.format(type), SHARD_FILL_TIMEOUT);
        }
      }
    }

    @Override
    public void prefetch(List<HashRange> ranges) {
      try {
        for (Type type : shardOnlyTypes()) {
          cache.restrict(type, ranges, Duration.ZERO);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }

    @Override
    public void membershipChanged() {
      try {
        // A member that just joined holds no slot yet: its controllers start on an empty cache
        // rather than listing the whole type only to drop most of it.
        prepare(sharding.ranges());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
      placeAll();
    }
  }

  /**
   * The managed types of SHARDED controllers that nothing else here needs whole: their cache holds
   * only the shard's ranges. A type another controller caches, or a sharded one watches (its
   * resources map to keys of every shard), stays whole.
   */
  private Set<Type> shardOnlyTypes() {
    Set<Type> types = new HashSet<>();
    Set<Type> whole = new HashSet<>();
    for (Supervised s : controllers.values()) {
      ControllerSpec c = s.controller();
      for (Type type : c.cachedTypes()) {
        if (c.placement() == Placement.SHARDED && type.equals(c.managedType())) {
          types.add(type);
        } else {
          whole.add(type);
        }
      }
    }
    types.removeAll(whole);
    return types;
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * Adds a controller; it starts with the manager (or at once, if the manager already runs).
   *
   * @throws IllegalArgumentException when a controller of that name is registered already, or
   *     another controller has an index of the same name on the same type with another function
   *     (the controllers share one cache, so one of the two would read the other's index)
   */
  public synchronized Manager register(Controller registered) {
    ControllerSpec controller = registered.spec();
    if (loops.containsKey(controller.name()) || controllers.containsKey(controller.name())) {
      throw new IllegalArgumentException("a controller named " + controller.name() + " is already registered");
    }
    if (controller.placement() == Placement.SHARDED && sharding == null) {
      throw new IllegalArgumentException("controller " + controller.name()
          + " is SHARDED: build the manager with Manager.Builder.sharding(Sharding.named(...)),"
          + " or start the agent that runs it with -shard-group NAME (Agent.Builder.shardGroup)");
    }
    checkIndexes(controller);
    ControllerMetrics metrics = metrics(controller.name());
    Supervisor supervisor = new Supervisor(controller.name(), () -> runner(controller, metrics), drain, ticker, faults);
    controllers.put(controller.name(), new Supervised(controller, supervisor));
    keepWhole();
    if (started) {
      place(controllers.get(controller.name()));
    }
    return this;
  }

  /** Makes the cache hold whole every type that a newly registered controller needs whole. */
  private void keepWhole() {
    if (sharding == null) {
      return;
    }
    Set<Type> shardOnly = shardOnlyTypes();
    for (Supervised s : controllers.values()) {
      for (Type type : s.controller().cachedTypes()) {
        if (!shardOnly.contains(type) && !cache.isWhole(type)) {
          try {
            cache.unrestrict(type, SHARD_FILL_TIMEOUT);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
          }
        }
      }
    }
  }

  private void checkIndexes(ControllerSpec added) {
    for (ControllerSpec.TypeIndex index : added.indexes()) {
      for (Supervised other : controllers.values()) {
        for (ControllerSpec.TypeIndex existing : other.controller().indexes()) {
          if (existing.type().equals(index.type()) && existing.index().name().equals(index.index().name())
              && !existing.index().equals(index.index())) {
            throw new IllegalArgumentException("controller " + other.controller().name() + " already indexes "
                + Types.format(index.type()) + " by \"" + index.index().name() + "\" with another function;"
                + " give the index of " + added.name() + " another name, or share one Index between them");
          }
        }
      }
    }
  }

  /**
   * Adds a generic loop; it starts with the manager (or at once, if the manager already runs) and
   * runs in every process, like an EACH_SERVER controller: give it a {@link
   * io.setpoint.controller.loop.LeaseLocker} so the processes split its keys. Its meters go to the
   * manager's registry and its timing follows the manager's ticker.
   *
   * @throws IllegalArgumentException when a controller or loop of that name is registered already
   */
  public synchronized Manager register(Loop<?, ?> loop) {
    if (controllers.containsKey(loop.name()) || loops.containsKey(loop.name())) {
      throw new IllegalArgumentException("a controller or loop named " + loop.name() + " is already registered");
    }
    ControllerMetrics metrics = metrics(loop.name());
    Supervisor supervisor = new Supervisor(loop.name(), () -> new LoopEngine<>(loop, metrics, ticker, faults), drain, ticker, faults);
    loops.put(loop.name(), supervisor);
    if (started && !closed) {
      supervisor.ensureRunning();
    }
    return this;
  }

  /**
   * Stops the controller or loop {@code name} (draining its in-flight work) and forgets it; it may
   * be registered again later. Returns whether one of that name was registered.
   */
  public boolean unregister(String name) {
    Supervised controller;
    Supervisor loop;
    synchronized (this) {
      controller = controllers.remove(name);
      loop = loops.remove(name);
    }
    if (controller != null) {
      controller.supervisor().ensureStopped();
    }
    if (loop != null) {
      loop.ensureStopped();
    }
    return controller != null || loop != null;
  }

  /**
   * Queues {@code id} for the controller {@code name} at high priority, with a {@code MANUAL}
   * trigger that says {@code reason}, as if the resource had changed; returns once it is queued.
   * Reconciling it once more is always safe: a reconcile only moves the world toward the spec.
   *
   * @throws IllegalArgumentException when no controller has that name, or {@code id} is not of its
   *     managed type
   * @throws IllegalStateException when the controller does not run here now (a SINGLETON
   *     controller of a manager that does not lead, or one waiting to restart)
   */
  public void trigger(String name, ID id, String reason) {
    Supervised s = controllers.get(name);
    if (s == null) {
      throw new IllegalArgumentException("no controller named " + name + " is registered"
          + (controllers.isEmpty() ? "" : "; registered: " + String.join(", ", new java.util.TreeSet<>(controllers.keySet()))));
    }
    if (!id.getType().equals(s.controller().managedType())) {
      throw new IllegalArgumentException("controller " + name + " manages " + Types.format(s.controller().managedType())
          + ", not " + Types.format(id.getType()));
    }
    if (!(s.supervisor().running() instanceof ControllerRunner runner)) {
      String why = switch (s.controller().placement()) {
        case SINGLETON -> leadership.isLeader() ? "" : " (it is SINGLETON and runs where the leader is)";
        case SHARDED -> sharding.isMember() ? "" : " (it is SHARDED and this manager is not in the shard group now)";
        case EACH_SERVER -> "";
      };
      throw new IllegalStateException("controller " + name + " does not run here now"
          + (why.isEmpty() ? s.supervisor().failure().map(f -> ": " + f).orElse("") : why));
    }
    runner.trigger(Request.of(id), reason);
  }

  /** The names of the registered loops, and whether each runs now. */
  public Map<String, Boolean> loops() {
    Map<String, Boolean> out = new java.util.TreeMap<>();
    loops.forEach((name, supervisor) -> out.put(name, supervisor.running() != null));
    return out;
  }

  /**
   * Starts every registered controller that should run here, and the leader election, if any.
   * Returns at once.
   */
  public void start() {
    started = true;
    placeAll();
    if (election != null) {
      election.start();
    }
    if (sharding != null) {
      sharding.start();
    }
  }

  /**
   * Whether this manager runs its SINGLETON controllers now: it holds the election's lease, or
   * (without an election) its {@link Leadership} says it leads.
   */
  public boolean isLeader() {
    return leadership.isLeader();
  }

  /** The shard group this manager is a member of, if it was built with one. */
  public Optional<Sharding> sharding() {
    return Optional.ofNullable(sharding);
  }

  /**
   * The cache the controllers share, to read: what it watches, indexes and (in a shard group)
   * holds is the manager's to decide.
   */
  public Cache cache() {
    return cache;
  }

  /** The name, running state, queue depth and failure, if any, of each registered controller. */
  /**
   * Up to {@code limit} of the most recent reconciles of controller {@code name} in this manager,
   * newest first (it keeps the last 256). Empty for a name that never ran here.
   */
  public List<ReconcileRecord> reconciles(String name, int limit) {
    if (limit < 0) {
      throw new IllegalArgumentException("limit must not be negative, was " + limit);
    }
    ReconcileHistory history = histories.get(name);
    return history == null ? List.of() : history.recent(limit);
  }

  /**
   * The recent reconciles of resource {@code id} by controller {@code name}, newest first; when
   * none is recent any more, its last reconcile (kept for the last 10,000 resources reconciled).
   */
  public List<ReconcileRecord> reconciles(String name, ID id) {
    ReconcileHistory history = histories.get(name);
    return history == null ? List.of() : history.of(Ids.format(Ids.withoutUid(id)));
  }

  /**
   * The controllers that should run here whose caches are not primed yet (not started, or still
   * listing), sorted by name; a readiness check waits for none. A controller that failed, and waits
   * to be restarted or gave up, is left out: {@link #controllers} reports it.
   */
  public List<String> unprimed() {
    List<String> out = new ArrayList<>();
    for (Supervised s : controllers.values()) {
      if (runsHere(s) && s.supervisor().failure().isEmpty() && !cache.isPrimed(s.controller().cachedTypes())) {
        out.add(s.controller().name());
      }
    }
    out.sort(null);
    return out;
  }

  /**
   * The controllers that should run here but do not, because they failed: each as its name and
   * why (restarting after an error, or gave up), sorted by name. A readiness check reports them.
   */
  public List<String> stopped() {
    List<String> out = new ArrayList<>();
    for (Supervised s : controllers.values()) {
      if (runsHere(s) && s.supervisor().running() == null) {
        s.supervisor().failure().ifPresent(why -> out.add(s.controller().name() + " (" + why + ")"));
      }
    }
    out.sort(null);
    return out;
  }

  public List<ControllerState> controllers() {
    List<ControllerState> out = new ArrayList<>();
    for (Supervised s : controllers.values()) {
      Runner runner = s.supervisor().running();
      ReconcileHistory history = histories.get(s.controller().name());
      ReconcileHistory.Counts counts = history == null ? ReconcileHistory.Counts.NONE : history.counts();
      out.add(new ControllerState(s.controller().name(), s.controller().managedType(),
          s.controller().placement(), runner != null, runner == null ? 0 : runner.queueDepth(),
          s.supervisor().failure(), s.controller().concurrency(), counts.total(), counts.errors(),
          faults.count(s.controller().name()), faults.last(s.controller().name())));
    }
    out.sort(java.util.Comparator.comparing(ControllerState::name));
    return out;
  }

  /**
   * Runs {@code controller}'s reconciler once for {@code request}, here and now, with the same
   * runtime (primed cache, client, events) a running controller gets, but no queue: the unit tier
   * of controller tests. The controller need not be registered.
   */
  public Result reconcileOnce(Controller unregistered, Request request) throws Exception {
    ControllerSpec controller = unregistered.spec();
    for (ControllerSpec.TypeIndex index : controller.indexes()) {
      cache.addIndex(index.type(), index.index());
    }
    controller.queries().forEach(cache::addQuery);
    if (!cache.awaitPrimed(controller.cachedTypes(), Duration.ofMinutes(1))) {
      throw new IllegalStateException("the cache of " + controller.name() + " was not primed within a minute");
    }
    ControllerTools tools = tools(controller);
    return controller.reconciler().reconcile(ReconcileOnce.context(controller.name()), tools, request);
  }

  /**
   * Stops every controller (draining in-flight reconciles), then releases the election's lease and
   * leaves the shard group, so that others take over at once, and closes the cache.
   */
  @Override
  public void close() {
    closed = true;
    controllers.values().parallelStream().forEach(s -> s.supervisor().ensureStopped());
    loops.values().parallelStream().forEach(Supervisor::ensureStopped);
    if (sharding != null) {
      sharding.close();
    }
    if (election != null) {
      election.close();
    }
    cache.close();
  }

  private void placeAll() {
    if (started && !closed) {
      controllers.values().forEach(this::place);
      loops.values().forEach(Supervisor::ensureRunning);
    }
  }

  private boolean runsHere(Supervised s) {
    return switch (s.controller().placement()) {
      case EACH_SERVER -> true;
      case SINGLETON -> leadership.isLeader();
      case SHARDED -> sharding.isMember();
    };
  }

  private void place(Supervised s) {
    if (runsHere(s)) {
      s.supervisor().ensureRunning();
    } else {
      s.supervisor().ensureStopped();
      if (election != null && s.controller().placement() == Placement.SINGLETON) {
        warm(s.controller());
      }
    }
  }

  /**
   * The shared cache's watch of {@code type} failed and lists afresh, or one of its listeners threw:
   * a fault of every controller that caches the type, since each one's view stood still meanwhile.
   */
  private void cacheFailed(Type type, String where, Throwable cause) {
    // Logged where it happened (the informer, or the cache for a listener): here it is only counted.
    for (Supervised s : controllers.values()) {
      if (s.controller().cachedTypes().contains(type)) {
        faults.tally(s.controller().name(), where, Types.format(type), cause);
      }
    }
  }

  /** Primes the cache a standby's controller will need, so that taking over starts at once. */
  private void warm(ControllerSpec controller) {
    try {
      for (ControllerSpec.TypeIndex index : controller.indexes()) {
        cache.addIndex(index.type(), index.index());
      }
      controller.queries().forEach(cache::addQuery);
      controller.cachedTypes().forEach(cache::watch);
    } catch (RuntimeException e) {
      // Starting the controller reports the same problem, when it starts.
      LoggerFactory.getLogger(Manager.class).warn("could not prime the cache of {}: {}", controller.name(), e.getMessage());
    }
  }

  private ControllerMetrics metrics(String name) {
    return metrics.computeIfAbsent(name, n -> new ControllerMetrics(meters, n));
  }

  private ControllerRunner runner(ControllerSpec controller, ControllerMetrics metrics) {
    ReconcileHistory history = histories.computeIfAbsent(controller.name(),
        n -> new ReconcileHistory(n, clock, ReconcileHistory.CAPACITY, ReconcileHistory.KEYS));
    ReconcileTracing tracing = tracer == null ? null : new ReconcileTracing(tracer, clock, controller.name());
    return new ControllerRunner(controller, cache, tools(controller), metrics, history, tracing, ticker,
        controller.placement() == Placement.SHARDED ? sharding.gate() : null, faults);
  }

  private ControllerTools tools(ControllerSpec controller) {
    SetpointClient writer = client;
    if (election != null && controller.placement() == Placement.SINGLETON) {
      // Fixed for the runner's life: a runner left over from an earlier term cannot write in a later one.
      writer = client.fenced(election.fence().orElseThrow(
          () -> new IllegalStateException("not the leader of election " + election.name())));
    } else if (controller.placement() == Placement.SHARDED) {
      // Fixed for the runner's life: once this membership ends, its writes are refused.
      writer = client.fenced(sharding.fence().orElseThrow(
          () -> new IllegalStateException("not a member of shard group " + sharding.name())));
    }
    return new ControllerTools(writer, cache,
        LoggerFactory.getLogger("io.setpoint.controller." + controller.name()),
        new ResourceEventRecorder(writer, controller.name(), clock), clock);
  }

  /** Configures a {@link Manager}. */
  public static final class Builder {
    private SetpointClient client;
    private MeterRegistry meters = new SimpleMeterRegistry();
    private OpenTelemetry openTelemetry;
    private Leadership leadership = Leadership.always();
    private Clock clock = Clock.systemUTC();
    private Ticker ticker = Ticker.system();
    private Duration drain = Duration.ofSeconds(30);
    private LeaseElection.Builder election;
    private Sharding.Builder sharding;

    private Builder() {}

    /** The server connection (required); in-process in the agent, gRPC elsewhere. */
    public Builder client(SetpointClient client) {
      this.client = Objects.requireNonNull(client, "client");
      return this;
    }

    /**
     * Traces every reconcile with {@code openTelemetry} (default: none, and then no span is made and
     * no trace context read): a {@code queue NAME} and a {@code reconcile NAME} span per run, in the trace of the
     * write whose watch event caused it, with the reconciler's client calls inside when its client
     * traces too ({@code SetpointClient.Builder.openTelemetry}).
     */
    public Builder openTelemetry(OpenTelemetry openTelemetry) {
      this.openTelemetry = Objects.requireNonNull(openTelemetry, "openTelemetry");
      return this;
    }

    /** Where the controller and work-queue meters go (default: a private registry). */
    public Builder meterRegistry(MeterRegistry meters) {
      this.meters = Objects.requireNonNull(meters, "meters");
      return this;
    }

    /**
     * When SINGLETON controllers may run (default: always). Inside the agent, whether its store
     * leads the Raft group; in processes of their own, use {@link #leaderElection} instead.
     */
    public Builder leadership(Leadership leadership) {
      this.leadership = Objects.requireNonNull(leadership, "leadership");
      this.election = null;
      return this;
    }

    /**
     * Runs SINGLETON controllers only while this manager holds the election's lease, with their
     * writes fenced by it; replaces {@link #leadership}. The drain timeout is capped at the lease
     * duration less the renew deadline, so a leader that steps down has stopped before another
     * can lead.
     *
     * @throws IllegalArgumentException when the election's timings do not nest (retry period,
     *     then renew deadline, then lease duration)
     */
    public Builder leaderElection(LeaseElection.Builder election) {
      Objects.requireNonNull(election, "election").check();
      this.election = election;
      return this;
    }

    /**
     * Makes this manager a member of a shard group: its SHARDED controllers reconcile, and cache,
     * only the keys the group gives this member, and their writes are fenced by its membership.
     *
     * @throws IllegalArgumentException when the group's timings do not nest (retry period, then
     *     renew deadline, then lease duration)
     */
    public Builder sharding(Sharding.Builder sharding) {
      Objects.requireNonNull(sharding, "sharding").check();
      this.sharding = sharding;
      return this;
    }

    /** {@link #leaderElection(LeaseElection.Builder)} on the lease {@code name} with default timing. */
    public Builder leaderElection(String name) {
      return leaderElection(LeaseElection.named(name));
    }

    /** The wall clock reconcilers see (default: system UTC). */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /** The ticker of delays, backoff and resync (a ManualTicker in tests). */
    public Builder ticker(Ticker ticker) {
      this.ticker = Objects.requireNonNull(ticker, "ticker");
      return this;
    }

    /** How long stopping waits for in-flight reconciles (default 30 s). */
    public Builder drainTimeout(Duration drain) {
      this.drain = Objects.requireNonNull(drain, "drain");
      return this;
    }

    public Manager build() {
      if (client == null) {
        throw new IllegalStateException("a Manager needs a client");
      }
      return new Manager(this);
    }
  }
}
