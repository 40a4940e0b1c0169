package io.setpoint.controller;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.setpoint.controller.queue.WorkQueue;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A controller's meters, named as controller-runtime names them so existing dashboards work:
 * {@code controller_runtime_reconcile_total{controller,result}}, {@code
 * controller_runtime_reconcile_errors_total}, {@code controller_runtime_reconcile_time_seconds},
 * {@code controller_runtime_active_workers}, and the {@code workqueue_*} family with {@code
 * name=<controller>}.
 *
 * <p>One instance per controller or loop for the life of its manager, shared by every run of it:
 * a gauge registers its value holder only once, so a controller restarted (after a leader change,
 * say) with fresh meters would get a registry warning and gauges stuck on the first run's values.
 */
final class ControllerMetrics {
  static final String SUCCESS = "success";
  static final String ERROR = "error";
  static final String REQUEUE = "requeue";
  static final String REQUEUE_AFTER = "requeue_after";

  private final MeterRegistry registry;
  private final String controller;
  private final Map<String, Counter> results = new ConcurrentHashMap<>();
  private final Counter errors;
  private final Timer reconcileTime;
  private final AtomicInteger activeWorkers = new AtomicInteger();
  private final MeteredQueue queue;
  private final AtomicInteger maxConcurrent = new AtomicInteger();

  /** controller-runtime's buckets of {@code controller_runtime_reconcile_time_seconds}, 5 ms to 60 s. */
  private static final Duration[] RECONCILE_BUCKETS = seconds(0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3,
      0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5, 6, 7, 8, 9, 10,
      15, 20, 25, 30, 40, 50, 60);
  /** client-go's buckets of the work queue's durations: ten times apart, 10 ns to 1,000 s. */
  private static final Duration[] QUEUE_BUCKETS = seconds(1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1, 10, 100,
      1000);

  ControllerMetrics(MeterRegistry registry, String controller) {
    this.registry = registry;
    this.controller = controller;
    this.errors = Counter.builder("controller.runtime.reconcile.errors")
        .description("Reconciles that failed").tag("controller", controller).register(registry);
    this.reconcileTime = Timer.builder("controller.runtime.reconcile.time")
        .description("How long reconciles took").tag("controller", controller)
        .serviceLevelObjectives(RECONCILE_BUCKETS).register(registry);
    registry.gauge("controller.runtime.active.workers", Tags.of("controller", controller), activeWorkers);
    registry.gauge("controller.runtime.max.concurrent.reconciles", Tags.of("controller", controller), maxConcurrent);
    this.queue = new MeteredQueue(
        Counter.builder("workqueue.adds").tag("name", controller).register(registry),
        Counter.builder("workqueue.retries").tag("name", controller).register(registry),
        Timer.builder("workqueue.queue.duration").tag("name", controller).serviceLevelObjectives(QUEUE_BUCKETS)
            .register(registry),
        Timer.builder("workqueue.work.duration").tag("name", controller).serviceLevelObjectives(QUEUE_BUCKETS)
            .register(registry),
        registry.gauge("workqueue.depth", Tags.of("name", controller), new AtomicInteger()));
  }

  void reconciled(String result, Duration took) {
    results.computeIfAbsent(result, r -> Counter.builder("controller.runtime.reconcile")
        .description("Reconciles by result").tag("controller", controller).tag("result", r)
        .register(registry)).increment();
    if (ERROR.equals(result)) {
      errors.increment();
    }
    reconcileTime.record(took);
  }

  /** The workers of the current run: {@code controller_runtime_max_concurrent_reconciles}. */
  void workers(int concurrency) {
    maxConcurrent.set(concurrency);
  }

  void workerStarted() {
    activeWorkers.incrementAndGet();
  }

  void workerFinished() {
    activeWorkers.decrementAndGet();
  }

  private static Duration[] seconds(double... values) {
    Duration[] out = new Duration[values.length];
    for (int i = 0; i < values.length; i++) {
      out[i] = Duration.ofNanos(Math.round(values[i] * 1e9));
    }
    return out;
  }

  /** Bridges the work queue's callbacks to the {@code workqueue_*} meters. */
  WorkQueue.Listener queueListener() {
    return queue;
  }
}
