package io.setpoint.controller;

import io.setpoint.controller.queue.Priority;
import io.setpoint.controller.queue.Trigger;
import io.setpoint.controller.queue.WorkQueue;
import io.setpoint.controller.time.Ticker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * The reconcile loop shared by resource controllers and generic loops: virtual-thread workers that
 * take keys from a work queue and run each through a body under the same policy. Per key: a
 * context with its triggers and queue wait, the name and key in the MDC, a watchdog for the
 * timeout, the controller-runtime metrics, and what happens next (done, requeue after, retry with
 * backoff up to a limit, or terminal). The queue guarantees one run per key at a time and that an
 * add arriving meanwhile runs the key again after.
 */
final class Workers<K> {
  private static final Logger log = LoggerFactory.getLogger(Workers.class);

  /** What runs for one key. */
  @FunctionalInterface
  interface Body<K> {
    Result run(WorkContext<K> ctx) throws Exception;
  }

  /**
   * Which keys this process may run now, and which are running: a shard's. A key refused is
   * forgotten, not retried; it is queued again if it comes back.
   */
  interface Admission<K> {
    /** Whether {@code key} may run now; when true, {@link #exit} follows its run. */
    boolean enter(K key);

    void exit(K key);
  }

  /**
   * How keys are run.
   *
   * @param timeout cancel a run after this long; zero for never
   * @param resync run a key again this long (minus up to 10% jitter) after it succeeds; zero for
   *     never
   * @param maxRetries retries of a failing key before it is dropped
   * @param mdcKey the MDC entry that carries the key ({@code resource} for controllers)
   */
  record Policy(Duration timeout, Duration resync, int maxRetries, String mdcKey) {
    Policy {
      Objects.requireNonNull(timeout, "timeout");
      Objects.requireNonNull(resync, "resync");
      Objects.requireNonNull(mdcKey, "mdcKey");
    }
  }

  private final String name;
  private final WorkQueue<K> queue;
  private final ControllerMetrics metrics;
  private final Ticker ticker;
  private final Policy policy;
  private final Body<K> body;
  private final List<Thread> threads = new ArrayList<>();
  private final Set<WorkContext<K>> running = ConcurrentHashMap.newKeySet();
  private volatile Consumer<Throwable> failed = cause -> {};
  private volatile BiConsumer<K, String> gaveUp = (key, why) -> {};
  private volatile Admission<K> admission;
  private volatile ReconcileHistory history;
  private volatile ReconcileTracing tracing;
  private volatile Function<K, String> keyText = String::valueOf;
  private volatile boolean stopping;

  Workers(String name, WorkQueue<K> queue, ControllerMetrics metrics, Ticker ticker, Policy policy, Body<K> body) {
    this.name = name;
    this.queue = queue;
    this.metrics = metrics;
    this.ticker = ticker;
    this.policy = policy;
    this.body = body;
  }

  /**
   * Calls {@code listener} if a worker thread ends other than by being stopped (a bug in the
   * engine: a reconciler's failures, errors included, are retried and never end a worker).
   */
  void onFailure(Consumer<Throwable> listener) {
    this.failed = Objects.requireNonNull(listener, "listener");
  }

  /** Calls {@code listener} with a key and its last error when its retries ran out. */
  void onGiveUp(BiConsumer<K, String> listener) {
    this.gaveUp = Objects.requireNonNull(listener, "listener");
  }

  /** Runs only the keys {@code admission} lets in (before {@link #start}). */
  void admit(Admission<K> admission) {
    this.admission = Objects.requireNonNull(admission, "admission");
  }

  /** Records every run in {@code history}, each key as {@code keyText} writes it (before {@link #start}). */
  void journal(ReconcileHistory history, Function<K, String> keyText) {
    this.keyText = Objects.requireNonNull(keyText, "keyText");
    this.history = Objects.requireNonNull(history, "history");
  }

  /** Traces every run with {@code tracing} (before {@link #start}). */
  void trace(ReconcileTracing tracing) {
    this.tracing = Objects.requireNonNull(tracing, "tracing");
  }

  /** Starts {@code concurrency} workers. */
  void start(int concurrency) {
    metrics.workers(concurrency);
    for (int i = 0; i < concurrency; i++) {
      threads.add(Thread.ofVirtual().name("setpoint-" + name + "-worker-" + i).start(this::work));
    }
  }

  /**
   * Shuts the queue down, lets running keys finish within {@code deadline}, then cancels and
   * interrupts whatever still runs.
   */
  void stop(Duration deadline) {
    stopping = true;
    queue.shutDownAndDrain(deadline);
    running.forEach(WorkContext::cancel);
    threads.forEach(Thread::interrupt);
  }

  private void work() {
    try {
      while (true) {
        WorkQueue.Item<K> item;
        try {
          item = queue.take();
        } catch (InterruptedException e) {
          return;
        }
        if (item == null) {
          return;
        }
        Admission<K> gate = admission;
        try {
          if (gate == null) {
            run(item);
          } else if (gate.enter(item.key())) {
            try {
              run(item);
            } finally {
              gate.exit(item.key());
            }
          } else {
            queue.forget(item.key());
          }
        } finally {
          queue.done(item.key());
        }
      }
    } catch (Throwable t) {
      if (!stopping) {
        // Never silently: the supervisor restarts the controller, and says why it does.
        log.error("a worker of {} died", name, t);
        failed.accept(t);
      }
    }
  }

  private void run(WorkQueue.Item<K> item) {
    K key = item.key();
    Duration waited = item.queueWait();
    WorkContext<K> ctx = new WorkContext<>(name, key, item.triggers(), item.retries(), waited);
    Watchdog watchdog = Watchdog.arm(policy.timeout(), ctx, Thread.currentThread(), ticker);
    running.add(ctx);
    MDC.put("controller", name);
    MDC.put(policy.mdcKey(), key.toString());
    long started = ticker.read();
    metrics.workerStarted();
    String outcome;
    String message = "";
    ReconcileTracing tracer = tracing;
    ReconcileHistory journal = history;
    String text = tracer == null && journal == null ? null : keyText.apply(key);
    ReconcileTracing.Run traced = tracer == null ? null : tracer.start(text, item.triggers(), waited);
    if (traced != null) {
      MDC.put("trace_id", traced.span().getSpanContext().getTraceId());
    }
    try {
      log.debug("reconciling {} after {} ms in the queue, because {}", key, waited.toMillis(), item.triggers());
      Result result = body.run(ctx);
      queue.forget(key);
      if (result instanceof Result.RequeueAfter after) {
        String why = ctx.requeueReason() != null ? ctx.requeueReason() : "requeue after " + after.delay();
        queue.addAfter(key, after.delay(), Trigger.timer(why), Priority.HIGH, true);
        message = why;
        outcome = after.delay().isZero() ? ControllerMetrics.REQUEUE : ControllerMetrics.REQUEUE_AFTER;
      } else {
        scheduleResync(key);
        outcome = ControllerMetrics.SUCCESS;
      }
    } catch (TerminalException e) {
      queue.forget(key);
      log.warn("reconcile of {} failed terminally, not retrying: {}", key, e.getMessage());
      outcome = ControllerMetrics.ERROR;
      message = "terminal: " + e.getMessage();
    } catch (InterruptedException e) {
      message = retry(key, ctx.isCancelled() ? "timed out" : "interrupted", null);
      outcome = ControllerMetrics.ERROR;
    } catch (Exception e) {
      message = retry(key, String.valueOf(e.getMessage()), e);
      outcome = ControllerMetrics.ERROR;
    } catch (Error e) {
      // An Error from a reconciler (an assertion, a stack overflow, a class that failed to load)
      // fails that reconcile like an exception: left to propagate, it ended the worker thread
      // silently, and with concurrency 1 the whole controller.
      message = retry(key, e.toString(), e);
      outcome = ControllerMetrics.ERROR;
    } finally {
      watchdog.disarm();
      Thread.interrupted();
      running.remove(ctx);
      metrics.workerFinished();
      MDC.remove(policy.mdcKey());
      MDC.remove("controller");
      MDC.remove("trace_id");
    }
    Duration took = Duration.ofNanos(ticker.read() - started);
    metrics.reconciled(outcome, took);
    if (traced != null) {
      traced.end(outcome, message);
    }
    if (journal != null) {
      journal.add(text, item.triggers(), waited, took, outcome, message);
    }
    log.debug("reconciled {} in {} ms: {}", key, took.toMillis(), outcome);
  }

  /** Retries {@code key} with backoff, or gives up on it; returns what its history records. */
  private String retry(K key, String why, Throwable cause) {
    int failures = queue.retries(key);
    if (failures >= policy.maxRetries()) {
      // Dropped, not lost: the next list, event or resync queues the key afresh.
      queue.forget(key);
      log.error("reconcile of {} failed after {} retries, giving up until it is queued again: {}",
          key, failures, why, cause);
      gaveUp.accept(key, why);
      return "gave up after " + failures + " retries: " + why;
    }
    if (!queue.isShutDown()) {
      queue.addRateLimited(key, Trigger.retry("after failure: " + why));
    }
    log.warn("reconcile of {} failed (retry {}): {}", key, failures + 1, why, cause);
    return why;
  }

  private void scheduleResync(K key) {
    Duration resync = policy.resync();
    if (resync.isZero()) {
      return;
    }
    long jitter = (long) (resync.toNanos() * 0.1 * ThreadLocalRandom.current().nextDouble());
    queue.addAfter(key, resync.minusNanos(jitter), Trigger.resync(), Priority.LOW, false);
  }
}
