package io.setpoint.controller.manager;

import io.setpoint.api.Ids;
import io.setpoint.api.Types;
import io.setpoint.api.v1.Resource;
import io.setpoint.controller.Controller;
import io.setpoint.controller.ReconcileContext;
import io.setpoint.controller.Request;
import io.setpoint.controller.Result;
import io.setpoint.controller.Runtime;
import io.setpoint.controller.TerminalException;
import io.setpoint.controller.cache.SharedCache;
import io.setpoint.controller.predicate.ResourceEvent;
import io.setpoint.controller.queue.Priority;
import io.setpoint.controller.queue.Trigger;
import io.setpoint.controller.queue.WorkItem;
import io.setpoint.controller.queue.WorkQueue;
import io.setpoint.controller.time.Ticker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * Runs one controller: feeds its work queue from the shared cache's events, its mappers and its
 * sources, and drains it with {@code concurrency} virtual-thread workers. The queue guarantees one
 * reconcile per request at a time and that an update arriving meanwhile is reconciled after.
 */
final class ControllerRunner {
  private static final Logger log = LoggerFactory.getLogger(ControllerRunner.class);
  private static final Duration PRIME_TIMEOUT = Duration.ofMinutes(2);

  private final Controller controller;
  private final SharedCache cache;
  private final Runtime runtime;
  private final WorkQueue<Request> queue;
  private final ControllerMetrics metrics;
  private final Ticker ticker;
  private final List<Registration> listeners = new ArrayList<>();
  private final List<AutoCloseable> sources = new ArrayList<>();
  private final List<Thread> workers = new ArrayList<>();
  private final AtomicBoolean stopping = new AtomicBoolean();

  private record Registration(io.setpoint.api.v1.Type type, Consumer<ResourceEvent> listener) {}

  ControllerRunner(Controller controller, SharedCache cache, Runtime runtime, ControllerMetrics metrics, Ticker ticker) {
    this.controller = controller;
    this.cache = cache;
    this.runtime = runtime;
    this.metrics = metrics;
    this.ticker = ticker;
    this.queue = WorkQueue.<Request>builder()
        .ticker(ticker)
        .backoff(controller.backoffBase(), controller.backoffMax())
        .tenant(request -> request.id().getTenancy().getPartition() + "/" + request.id().getTenancy().getNamespace())
        .listener(metrics.queueListener())
        .build();
  }

  Controller controller() {
    return controller;
  }

  int queueDepth() {
    return queue.depth();
  }

  /** Primes the cache, runs the initializer, queues every managed resource and starts workers. */
  void start() throws Exception {
    for (Controller.TypeIndex index : controller.indexes()) {
      cache.addIndex(index.type(), index.index());
    }
    controller.queries().forEach(cache::addQuery);
    listen(controller.managedType(), this::onManagedEvent);
    for (Controller.Watch watch : controller.watches()) {
      listen(watch.type(), event -> onWatchedEvent(watch, event));
    }
    if (!cache.awaitPrimed(controller.cachedTypes(), PRIME_TIMEOUT)) {
      throw new IllegalStateException("the cache of " + controller.name() + " was not primed within " + PRIME_TIMEOUT);
    }
    controller.initializer().initialize(runtime);
    for (Resource resource : cache.list(controller.managedType())) {
      queue.add(Request.of(resource.getId()), Trigger.startup(), Priority.LOW);
    }
    for (Controller.SourceBinding<?> binding : controller.sources()) {
      sources.add(startSource(binding));
    }
    for (int i = 0; i < controller.concurrency(); i++) {
      workers.add(Thread.ofVirtual().name("setpoint-" + controller.name() + "-worker-" + i).start(this::work));
    }
    log.info("controller {} started ({} workers)", controller.name(), controller.concurrency());
  }

  /** Stops taking work, lets in-flight reconciles finish within {@code deadline}, then interrupts. */
  void stop(Duration deadline) {
    if (!stopping.compareAndSet(false, true)) {
      return;
    }
    listeners.forEach(r -> cache.removeListener(r.type(), r.listener()));
    for (AutoCloseable source : sources) {
      try {
        source.close();
      } catch (Exception e) {
        log.warn("source of controller {} failed to close", controller.name(), e);
      }
    }
    queue.shutDownAndDrain(deadline);
    workers.forEach(Thread::interrupt);
    log.info("controller {} stopped", controller.name());
  }

  private void listen(io.setpoint.api.v1.Type type, Consumer<ResourceEvent> listener) {
    cache.addListener(type, listener);
    listeners.add(new Registration(type, listener));
  }

  private <E> AutoCloseable startSource(Controller.SourceBinding<E> binding) throws Exception {
    return binding.source().start(event -> {
      try {
        for (Request request : binding.mapper().apply(event)) {
          enqueue(request, Trigger.event("source event " + event));
        }
      } catch (RuntimeException e) {
        log.error("controller {}: mapping a source event failed", controller.name(), e);
      }
    });
  }

  private void onManagedEvent(ResourceEvent event) {
    if (controller.filter().test(event)) {
      enqueue(Request.of(event.resource().getId()), eventTrigger(event));
    }
  }

  private void onWatchedEvent(Controller.Watch watch, ResourceEvent event) {
    if (!watch.filter().test(event)) {
      return;
    }
    try {
      Trigger trigger = eventTrigger(event);
      for (Request request : watch.mapper().map(runtime, event.resource())) {
        enqueue(request, trigger);
      }
      // What the resource related to before the change matters too (an artist leaving a label).
      if (event.previous() != null && !event.isDelete()) {
        for (Request request : watch.mapper().map(runtime, event.previous())) {
          enqueue(request, trigger);
        }
      }
    } catch (RuntimeException e) {
      log.error("controller {}: the mapper of {} failed on {}", controller.name(),
          Types.format(watch.type()), Ids.format(event.resource().getId()), e);
    }
  }

  private void enqueue(Request request, Trigger trigger) {
    if (!request.id().getType().equals(controller.managedType())) {
      log.debug("controller {}: dropping a request for {}, which it does not manage", controller.name(), request);
      return;
    }
    queue.add(request, trigger, Priority.HIGH);
  }

  private static Trigger eventTrigger(ResourceEvent event) {
    return Trigger.event((event.isDelete() ? "delete " : "upsert ")
        + Ids.format(event.resource().getId()) + " @ revision " + event.revision());
  }

  private void work() {
    while (true) {
      WorkItem<Request> item;
      try {
        item = queue.take();
      } catch (InterruptedException e) {
        return;
      }
      if (item == null) {
        return;
      }
      try {
        reconcile(item);
      } finally {
        queue.done(item.key());
      }
    }
  }

  private void reconcile(WorkItem<Request> item) {
    Request request = item.key();
    Duration waited = item.queueWait();
    Context ctx = new Context(controller.name(), item.triggers(), item.retries(), waited);
    Thread worker = Thread.currentThread();
    Watchdog watchdog = Watchdog.arm(controller.reconcileTimeout(), ctx, worker);
    MDC.put("controller", controller.name());
    MDC.put("resource", request.toString());
    long started = ticker.read();
    metrics.workerStarted();
    String outcome;
    try {
      log.debug("reconciling {} after {} ms in the queue, because {}", request, waited.toMillis(), item.triggers());
      Result result = controller.reconciler().reconcile(ctx, runtime, request);
      queue.forget(request);
      if (result instanceof Result.RequeueAfter after) {
        queue.addAfter(request, after.delay(), Trigger.timer("requeue after " + after.delay()),
            Priority.HIGH, true);
        outcome = after.delay().isZero() ? ControllerMetrics.REQUEUE : ControllerMetrics.REQUEUE_AFTER;
      } else {
        scheduleResync(request);
        outcome = ControllerMetrics.SUCCESS;
      }
    } catch (TerminalException e) {
      queue.forget(request);
      log.warn("reconcile of {} failed terminally, not retrying: {}", request, e.getMessage());
      outcome = ControllerMetrics.ERROR;
    } catch (InterruptedException e) {
      outcome = retry(request, ctx.isCancelled() ? "timed out" : "interrupted", null);
    } catch (Exception e) {
      outcome = retry(request, e.getMessage(), e);
    } finally {
      watchdog.disarm();
      Thread.interrupted();
      metrics.workerFinished();
      MDC.remove("resource");
      MDC.remove("controller");
    }
    Duration took = Duration.ofNanos(ticker.read() - started);
    metrics.reconciled(outcome, took);
    log.debug("reconciled {} in {} ms: {}", request, took.toMillis(), outcome);
  }

  private String retry(Request request, String why, Exception cause) {
    if (!stopping.get()) {
      queue.addRateLimited(request, Trigger.retry("after failure: " + why));
    }
    log.warn("reconcile of {} failed (retry {}): {}", request, queue.retries(request), why, cause);
    return ControllerMetrics.ERROR;
  }

  private void scheduleResync(Request request) {
    Duration resync = controller.resync();
    if (resync.isZero()) {
      return;
    }
    long jitter = (long) (resync.toNanos() * 0.1 * ThreadLocalRandom.current().nextDouble());
    queue.addAfter(request, resync.minusNanos(jitter), Trigger.resync(),
        Priority.LOW, false);
  }

  /** The {@link ReconcileContext} of one reconcile. */
  private static final class Context implements ReconcileContext {
    private final String controller;
    private final List<Trigger> triggers;
    private final int retries;
    private final Duration queueWait;
    private volatile boolean cancelled;

    Context(String controller, List<Trigger> triggers, int retries, Duration queueWait) {
      this.controller = controller;
      this.triggers = triggers;
      this.retries = retries;
      this.queueWait = queueWait;
    }

    @Override public String controller() { return controller; }
    @Override public List<Trigger> triggers() { return triggers; }
    @Override public int retries() { return retries; }
    @Override public Duration queueWait() { return queueWait; }
    @Override public boolean isCancelled() { return cancelled; }

    void cancel() {
      cancelled = true;
    }
  }

  /** Interrupts a reconcile that outlives its timeout, and never one that already ended. */
  private static final class Watchdog {
    private static final Watchdog NONE = new Watchdog();
    private final AtomicBoolean settled = new AtomicBoolean();
    private Thread timer;

    static Watchdog arm(Duration timeout, Context ctx, Thread worker) {
      if (timeout.isZero()) {
        return NONE;
      }
      Watchdog watchdog = new Watchdog();
      watchdog.timer = Thread.ofVirtual().start(() -> {
        try {
          Thread.sleep(timeout);
        } catch (InterruptedException e) {
          return;
        }
        if (watchdog.settled.compareAndSet(false, true)) {
          ctx.cancel();
          worker.interrupt();
        }
      });
      return watchdog;
    }

    /** Called by the worker when the reconcile ended; waits out a timeout that already fired. */
    void disarm() {
      if (timer == null) {
        return;
      }
      if (settled.compareAndSet(false, true)) {
        timer.interrupt();
      } else {
        try {
          timer.join();
        } catch (InterruptedException e) {
          // the timer's own interrupt of this worker; cleared by the caller
        }
      }
    }
  }
}
