package io.setpoint.controller;

import io.setpoint.api.Ids;
import io.setpoint.api.Shards;
import io.setpoint.api.Types;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.controller.cache.ResourceEvent;
import io.setpoint.controller.queue.Priority;
import io.setpoint.controller.queue.Trigger;
import io.setpoint.controller.queue.WorkQueue;
import io.setpoint.controller.time.Ticker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one controller: feeds its work queue from the shared cache's events, its mappers and its
 * sources, and drains it with {@code concurrency} {@link Workers} (the reconcile loop it shares with
 * generic loops). The queue guarantees one reconcile per request at a time and that an update
 * arriving meanwhile is reconciled after. A sharded controller's runner takes only the keys whose
 * slots the {@link SlotGate} holds open.
 */
final class ControllerRunner implements Runner {
  private static final Logger log = LoggerFactory.getLogger(ControllerRunner.class);
  private static final Duration PRIME_TIMEOUT = Duration.ofMinutes(2);
  /** How long a reconcile waits for the cache to show the previous reconcile's writes. */
  private static final Duration OWN_WRITES_BOUND = Duration.ofSeconds(5);

  private final ControllerSpec controller;
  private final SharedCache cache;
  private final ControllerTools tools;
  private final WorkQueue<Request> queue;
  private final List<Registration> listeners = new ArrayList<>();
  private final List<AutoCloseable> sources = new ArrayList<>();
  private final Workers<Request> workers;
  private final AtomicBoolean stopping = new AtomicBoolean();
  private final ReadYourWrites<Request> ownWrites;
  private final Faults faults;
  private final AtomicBoolean fairnessFailed = new AtomicBoolean();
  private final Deliveries deliveries;
  /** The shard's open slots; null when the controller is not sharded. */
  private final SlotGate shard;
  private final SlotGate.Listener slots = new SlotGate.Listener() {
    @Override
    public void opened(BitSet opened) {
      queueSlots(opened);
    }

    @Override
    public void closed(BitSet closed) {
      // Requeues and resyncs of keys now another member's would sit in the queue until due.
      queue.dropWaiting(request -> closed.get(slot(request.id())));
    }
  };

  private record Registration(io.setpoint.api.v1.Type type, Consumer<ResourceEvent> listener) {}

  ControllerRunner(ControllerSpec controller, SharedCache cache, ControllerTools tools, ControllerMetrics metrics,
      ReconcileHistory history, ReconcileTracing tracing, Ticker ticker, SlotGate shard, Faults faults) {
    this.controller = controller;
    this.faults = faults;
    this.deliveries = new Deliveries(controller.name(), faults, ticker);
    this.shard = shard;
    this.cache = cache;
    this.tools = tools;
    this.ownWrites = new ReadYourWrites<>(cache, OWN_WRITES_BOUND);
    WorkQueue.Builder<Request> queueBuilder = WorkQueue.<Request>builder()
        .ticker(ticker)
        .backoff(controller.backoffBase(), controller.backoffMax())
        .tenant(this::fairnessGroup)
        .aging(controller.aging())
        .listener(metrics.queueListener());
    if (controller.rateLimit().isLimited()) {
      queueBuilder.rateLimit(controller.rateLimit().perSecond(), controller.rateLimit().burst());
    }
    this.queue = queueBuilder.build();
    this.workers = new Workers<>(controller.name(), queue, metrics, ticker,
        new Workers.Policy(controller.reconcileTimeout(), controller.resync(), controller.maxRetries(), "resource"),
        this::reconcile);
    workers.onGiveUp(this::gaveUp);
    // Without the uid: a resource's history is by name, whatever the request that queued it held.
    workers.journal(history, request -> Ids.format(Ids.withoutUid(request.id())));
    if (tracing != null) {
      workers.trace(tracing);
    }
    if (shard != null) {
      workers.admit(new Workers.Admission<>() {
        @Override
        public boolean enter(Request request) {
          return shard.enter(slot(request.id()));
        }

        @Override
        public void exit(Request request) {
          shard.exit(slot(request.id()));
        }
      });
    }
  }

  private static int slot(ID id) {
    return ShardRing.slotOf(Shards.hash(id));
  }

  private boolean isMine(ID id) {
    return shard == null || shard.isOpen(slot(id));
  }

  /** One reconcile, once the cache shows what the previous reconcile of the same key wrote. */
  private Result reconcile(WorkContext<Request> ctx) throws Exception {
    ownWrites.awaitOwnWrites(ctx.key());
    return controller.reconciler().reconcile(ctx, tools.writingThrough(ownWrites.tracking(tools.client(), ctx.key())), ctx.key());
  }

  /** Tells whoever looks at the resource that the controller stopped retrying it, and why. */
  private void gaveUp(Request request, String why) {
    try {
      cache.get(request.id()).ifPresent(resource -> tools.events().warning(resource, "RetriesExhausted",
          "controller " + controller.name() + " gave up after " + controller.maxRetries() + " retries: " + why));
    } catch (RuntimeException e) {
      log.warn("controller {}: could not record that it gave up on {}", controller.name(), request, e);
    }
  }

  ControllerSpec controller() {
    return controller;
  }

  @Override
  public void onFailure(Consumer<Throwable> listener) {
    workers.onFailure(listener);
  }

  /**
   * Queues {@code request} at high priority with a manual trigger.
   *
   * @throws IllegalStateException when another member of the shard group owns it
   */
  void trigger(Request request, String reason) {
    if (!isMine(request.id())) {
      throw new IllegalStateException("controller " + controller.name() + " is sharded and "
          + Ids.format(request.id()) + " belongs to another member of the shard group");
    }
    queue.add(request, Trigger.manual(reason), Priority.HIGH);
  }

  /** Queues every cached managed resource of {@code slots}, which this shard just took over. */
  private void queueSlots(BitSet slots) {
    if (stopping.get()) {
      return;
    }
    Trigger moved = Trigger.of(Trigger.Kind.STARTUP, "shard slots moved here");
    for (Resource resource : cache.list(controller.managedType())) {
      if (slots.get(slot(resource.getId())) && isMine(resource.getId())) {
        queue.add(Request.of(resource.getId()), moved, Priority.LOW);
      }
    }
  }

  @Override
  public int queueDepth() {
    return queue.depth();
  }

  /** Primes the cache, runs the initializer, queues every managed resource and starts workers. */
  @Override
  public void start() throws Exception {
    controller.addIndexesAndQueries(cache);
    listen(controller.managedType(), this::onManagedEvent);
    if (shard != null) {
      shard.addListener(slots);
    }
    for (ControllerSpec.WatchedType watch : controller.watches()) {
      listen(watch.type(), event -> onWatchedEvent(watch, event));
    }
    if (!cache.awaitPrimed(controller.cachedTypes(), PRIME_TIMEOUT)) {
      throw new IllegalStateException("the cache of " + controller.name() + " was not primed within " + PRIME_TIMEOUT);
    }
    controller.initializer().initialize(tools);
    for (Resource resource : cache.list(controller.managedType())) {
      if (isMine(resource.getId())) {
        queue.add(Request.of(resource.getId()), Trigger.startup(), Priority.LOW);
      }
    }
    for (ControllerSpec.SourceBinding<?> binding : controller.sources()) {
      sources.add(startSource(binding));
    }
    workers.start(controller.concurrency());
    log.info("controller {} started ({} workers)", controller.name(), controller.concurrency());
  }

  /** Stops taking work, lets in-flight reconciles finish within {@code deadline}, then interrupts. */
  @Override
  public void stop(Duration deadline) {
    if (!stopping.compareAndSet(false, true)) {
      return;
    }
    listeners.forEach(r -> cache.removeListener(r.type(), r.listener()));
    deliveries.close();
    if (shard != null) {
      shard.removeListener(slots);
    }
    for (AutoCloseable source : sources) {
      try {
        source.close();
      } catch (Throwable e) {
        log.warn("source of controller {} failed to close", controller.name(), e);
      }
    }
    workers.stop(deadline);
    log.info("controller {} stopped", controller.name());
  }

  private void listen(io.setpoint.api.v1.Type type, Consumer<ResourceEvent> listener) {
    cache.addListener(type, listener);
    listeners.add(new Registration(type, listener));
  }

  private <E> AutoCloseable startSource(ControllerSpec.SourceBinding<E> binding) throws Exception {
    return binding.source().start(event -> {
      Trigger trigger = Trigger.event("source event " + event);
      deliveries.deliver(() -> "source mapper", () -> "event " + event, () -> binding.mapper().apply(event),
          request -> enqueue(request, trigger, Priority.HIGH));
    });
  }

  private void onManagedEvent(ResourceEvent event) {
    // Another shard's key costs one hash, not a trigger's text (a cache filling a gained range
    // reports thousands of them before the slots open).
    if (isMine(event.resource().getId()) && passes(controller.filter(), () -> "filter", event)) {
      enqueue(Request.of(event.resource().getId()), eventTrigger(event), priorityOf(event));
    }
  }

  private void onWatchedEvent(ControllerSpec.WatchedType watch, ResourceEvent event) {
    if (!passes(watch.filter(), () -> "filter of " + Types.format(watch.type()), event)) {
      return;
    }
    Trigger trigger = eventTrigger(event);
    Priority priority = priorityOf(event);
    deliveries.deliver(() -> "mapper of " + Types.format(watch.type()), () -> describe(event), () -> {
      List<Request> requests = new ArrayList<>(watch.mapper().map(tools, event.resource()));
      // What the resource related to before the change matters too (an artist leaving a label).
      if (event.previous() != null && !event.isDelete()) {
        requests.addAll(watch.mapper().map(tools, event.previous()));
      }
      return requests;
    }, request -> enqueue(request, trigger, priority));
  }

  /** The priority the controller gives {@code event}'s requests; HIGH, as a fault, if it throws. */
  private Priority priorityOf(ResourceEvent event) {
    try {
      return Objects.requireNonNull(controller.eventPriority().apply(event), "priority");
    } catch (Throwable t) {
      faults.record(controller.name(), "priority", describe(event), t, false);
      return Priority.HIGH;
    }
  }

  /**
   * The fairness group of {@code request}; the shared group, as a fault, if the controller's
   * {@code fairBy} throws. Asked by the queue as it adds a key, on whichever thread adds it (an
   * informer's, a worker's retry), none of which a user's bug may end.
   */
  private String fairnessGroup(Request request) {
    try {
      return controller.fairBy().apply(request);
    } catch (Throwable t) {
      // Every add asks again: the stack trace once is enough.
      faults.record(controller.name(), "fairness", Ids.format(request.id()), t, !fairnessFailed.compareAndSet(false, true));
      return "";
    }
  }

  /**
   * Whether {@code filter} lets {@code event} through. One that throws lets it through, as a
   * fault: a reconcile too many is harmless, and a change dropped would never be reconciled.
   */
  private boolean passes(Predicate<ResourceEvent> filter, Supplier<String> where, ResourceEvent event) {
    try {
      return filter.test(event);
    } catch (Throwable t) {
      faults.record(controller.name(), where.get(), describe(event), t, false);
      return true;
    }
  }

  private static String describe(ResourceEvent event) {
    return (event.isDelete() ? "delete of " : "upsert of ") + Ids.format(event.resource().getId())
        + " at revision " + event.revision();
  }

  private void enqueue(Request request, Trigger trigger, Priority priority) {
    if (!request.id().getType().equals(controller.managedType())) {
      log.debug("controller {}: dropping a request for {}, which it does not manage", controller.name(), request);
      return;
    }
    if (!isMine(request.id())) {
      return;
    }
    queue.add(request, trigger, priority);
  }

  private static Trigger eventTrigger(ResourceEvent event) {
    return Trigger.event((event.isDelete() ? "delete " : "upsert ")
        + Ids.format(event.resource().getId()) + " @ revision " + event.revision(), event.traceparent());
  }
}
