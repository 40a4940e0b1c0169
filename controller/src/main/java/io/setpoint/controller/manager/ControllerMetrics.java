package io.setpoint.controller.manager;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.setpoint.controller.queue.QueueListener;
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

  ControllerMetrics(MeterRegistry registry, String controller) {
    this.registry = registry;
    this.controller = controller;
    this.errors = Counter.builder("controller.runtime.reconcile.errors")
        .description("Reconciles that failed").tag("controller", controller).register(registry);
    this.reconcileTime = Timer.builder("controller.runtime.reconcile.time")
        .description("How long reconciles took").tag("controller", controller)
        .publishPercentileHistogram().register(registry);
    registry.gauge("controller.runtime.active.workers", Tags.of("controller", controller), activeWorkers);
    this.queue = new MeteredQueue(
        Counter.builder("workqueue.adds").tag("name", controller).register(registry),
        Counter.builder("workqueue.retries").tag("name", controller).register(registry),
        Timer.builder("workqueue.queue.duration").tag("name", controller).publishPercentileHistogram().register(registry),
        Timer.builder("workqueue.work.duration").tag("name", controller).publishPercentileHistogram().register(registry),
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

  void workerStarted() {
    activeWorkers.incrementAndGet();
  }

  void workerFinished() {
    activeWorkers.decrementAndGet();
  }

  /** Bridges the work queue's callbacks to the {@code workqueue_*} meters. */
  QueueListener queueListener() {
    return queue;
  }
}
