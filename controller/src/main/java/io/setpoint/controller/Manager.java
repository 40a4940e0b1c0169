package io.setpoint.controller;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Tracer;
import io.setpoint.api.Ids;
import io.setpoint.api.Types;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Type;
import io.setpoint.client.SetpointClient;
import io.setpoint.controller.cache.Cache;
import io.setpoint.controller.loop.Loop;
import io.setpoint.controller.queue.Trigger;
import io.setpoint.controller.time.Ticker;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

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
  private final SharedCache cache;
  private final Leadership leadership;
  /** The election this manager campaigns in; null when leadership comes from elsewhere. */
  private final LeaseElection election;
  /** The shard group of SHARDED controllers; null when there is none. */
  private final Sharding sharding;
  /** Null without a shard group. */
  private final ShardCaches shardCaches;
  private final Placer placer;
  private final RunnerFactory runners;
  private final Faults faults;
  private final ControllerRegistry registry = new ControllerRegistry();
  private final ManagerStatus status;
  private volatile boolean started;
  private volatile boolean closed;

  private Manager(Builder b) {
    this.cache = new SharedCache(b.client, b.ticker);
    this.faults = new Faults(b.meters, b.clock);
    // Logged where it happened (the informer, or the cache for a listener): here it is only counted.
    cache.onFailure((type, where, cause) -> faults.cacheFailed(registry.specs(), type, where, cause));
    Tracer tracer = b.openTelemetry == null ? null : b.openTelemetry.getTracer("io.setpoint.controller");
    this.election = b.election == null ? null : b.election.build(b.client, b.ticker, b.clock, faults);
    this.leadership = election != null ? election : b.leadership;
    // A leader that steps down must have stopped its controllers before a standby can take over.
    Duration drain = election != null && election.stepDownBudget().compareTo(b.drain) < 0 ? election.stepDownBudget() : b.drain;
    this.sharding = b.sharding == null ? null : b.sharding.build(b.client, b.ticker, b.clock, faults);
    this.shardCaches = sharding == null ? null : new ShardCaches(cache, sharding, registry::specs, this::placeAll);
    this.placer = new Placer(leadership, election != null, sharding, cache);
    this.runners = new RunnerFactory(b.client, cache, b.meters, b.clock, b.ticker, tracer, drain, faults, election, sharding);
    this.status = new ManagerStatus(registry, placer, cache, runners, faults);
    leadership.onChange(this::placeAll);
    if (sharding != null) {
      sharding.listener(shardCaches);
    }
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
    registry.checkAddable(controller, sharding != null);
    ControllerRegistry.Supervised added = registry.add(controller, runners.supervisor(controller));
    if (shardCaches != null) {
      shardCaches.keepWhole();
    }
    if (started) {
      placer.place(controller, added.supervisor());
    }
    return this;
  }

  /**
   * Adds a generic loop; it starts with the manager (or at once, if the manager already runs) and
   * runs in every process, like an EACH_SERVER controller: give it a {@linkplain
   * io.setpoint.controller.loop.Locker#lease lease locker} so the processes split its keys. Its
   * meters go to the manager's registry and its timing follows the manager's ticker.
   *
   * @throws IllegalArgumentException when a controller or loop of that name is registered already
   */
  public synchronized Manager register(Loop<?, ?> loop) {
    registry.checkLoopName(loop.name());
    Supervisor supervisor = runners.supervisor(loop);
    registry.addLoop(loop.name(), supervisor);
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
    List<Supervisor> removed;
    synchronized (this) {
      removed = registry.remove(name);
    }
    removed.forEach(Supervisor::ensureStopped);
    return !removed.isEmpty();
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
    ControllerRegistry.Supervised s = registry.controller(name);
    if (!id.getType().equals(s.controller().managedType())) {
      throw new IllegalArgumentException("controller " + name + " manages " + Types.format(s.controller().managedType())
          + ", not " + Types.format(id.getType()));
    }
    if (!(s.supervisor().running() instanceof ControllerRunner runner)) {
      String why = placer.whyNotHere(s.controller());
      throw new IllegalStateException("controller " + name + " does not run here now"
          + (why.isEmpty() ? s.supervisor().failure().map(f -> ": " + f).orElse("") : why));
    }
    runner.trigger(Request.of(id), reason);
  }

  /** The names of the registered loops, and whether each runs now. */
  public Map<String, Boolean> loops() {
    return status.loops();
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

  /**
   * Up to {@code limit} of the most recent reconciles of controller {@code name} in this manager,
   * newest first (it keeps the last 256). Empty for a name that never ran here.
   */
  public List<ReconcileRecord> reconciles(String name, int limit) {
    if (limit < 0) {
      throw new IllegalArgumentException("limit must not be negative, was " + limit);
    }
    ReconcileHistory history = runners.history(name);
    return history == null ? List.of() : history.recent(limit);
  }

  /**
   * The recent reconciles of resource {@code id} by controller {@code name}, newest first; when
   * none is recent any more, its last reconcile (kept for the last 10,000 resources reconciled).
   */
  public List<ReconcileRecord> reconciles(String name, ID id) {
    ReconcileHistory history = runners.history(name);
    return history == null ? List.of() : history.of(Ids.format(Ids.withoutUid(id)));
  }

  /**
   * The controllers that should run here whose caches are not primed yet (not started, or still
   * listing), sorted by name; a readiness check waits for none. A controller that failed, and waits
   * to be restarted or gave up, is left out: {@link #controllers} reports it.
   */
  public List<String> unprimed() {
    return status.unprimed();
  }

  /**
   * The controllers that should run here but do not, because they failed: each as its name and
   * why (restarting after an error, or gave up), sorted by name. A readiness check reports them.
   */
  public List<String> stopped() {
    return status.stopped();
  }

  /** The name, running state, queue depth and failure, if any, of each registered controller. */
  public List<ControllerState> controllers() {
    return status.controllers();
  }

  /**
   * Runs {@code controller}'s reconciler once for {@code request}, here and now, with the same
   * runtime (primed cache, client, events) a running controller gets, but no queue: the unit tier
   * of controller tests. The controller need not be registered.
   */
  public Result reconcileOnce(Controller unregistered, Request request) throws Exception {
    return runners.reconcileOnce(unregistered.spec(), request);
  }

  /**
   * Stops every controller (draining in-flight reconciles), then releases the election's lease and
   * leaves the shard group, so that others take over at once, and closes the cache.
   */
  @Override
  public void close() {
    closed = true;
    registry.controllers().parallelStream().forEach(s -> s.supervisor().ensureStopped());
    registry.loops().values().parallelStream().forEach(Supervisor::ensureStopped);
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
      registry.controllers().forEach(s -> placer.place(s.controller(), s.supervisor()));
      registry.loops().values().forEach(Supervisor::ensureRunning);
    }
  }

  /**
   * A registered controller as the manager sees it now ({@link #controllers()}).
   *
   * @param failure why it does not run although it should: the error it is being restarted after
   *     (it failed to start, or while running), with the backoff, or why it gave up (say, a type the
   *     server does not know); empty while it runs, starts for the first time, or is not placed here
   * @param workers how many reconciles it runs at once
   * @param reconciles the reconciles this manager ran since it started
   * @param errors those of them that failed
   * @param faults what failed outside reconciles since the manager started (a filter, mapper,
   *     source or initializer that threw, a watch of its cache that broke, a failed start)
   * @param lastFault the last of those: where, on what, the error and when
   */
  public record ControllerState(String name, Type managedType, Controller.Placement placement, boolean running,
      int queueDepth, Optional<String> failure, int workers, long reconciles, long errors, long faults,
      Optional<String> lastFault) {}

  /**
   * One reconcile a controller (or loop) ran: the key, what queued it, how long it waited and ran,
   * and how it ended; the manager keeps a bounded history of them per controller ({@link
   * #reconciles}).
   *
   * @param controller the controller's name
   * @param key the request's resource id ({@code group.version.Kind/tenancy/name}), or a loop's key
   *     as text
   * @param triggers why it ran, oldest first: the events, timers, retries or manual triggers merged
   *     into this run
   * @param started when it started, by the manager's clock
   * @param queueWait how long the key waited in the queue, ready, before it started
   * @param duration how long the reconcile ran
   * @param result {@code success}, {@code requeue}, {@code requeue_after} or {@code error}, as the
   *     {@code controller_runtime_reconcile_total} metric counts it
   * @param message the error, or why it asked to run again; empty after a plain success
   */
  public record ReconcileRecord(String controller, String key, List<Trigger> triggers, Instant started,
      Duration queueWait, Duration duration, String result, String message) {
    /** Checks the parts; {@code triggers} is copied, a null {@code message} is empty. */
    public ReconcileRecord {
      Objects.requireNonNull(controller, "controller");
      Objects.requireNonNull(key, "key");
      triggers = List.copyOf(triggers);
      Objects.requireNonNull(started, "started");
      Objects.requireNonNull(queueWait, "queueWait");
      Objects.requireNonNull(duration, "duration");
      Objects.requireNonNull(result, "result");
      message = message == null ? "" : message;
    }
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
