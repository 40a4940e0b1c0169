package io.setpoint.controller;

import io.micrometer.core.instrument.MeterRegistry;
import io.opentelemetry.api.trace.Tracer;
import io.setpoint.client.SetpointClient;
import io.setpoint.controller.Controller.Placement;
import io.setpoint.controller.loop.Loop;
import io.setpoint.controller.time.Ticker;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.LoggerFactory;

/**
 * Builds what a manager's controllers and loops run with: the supervisor of each, the runner it
 * starts, and the tools a reconcile gets, whose client is fenced by the lease or the shard
 * membership the controller runs under. Each name's meters and reconcile history outlive its
 * registration.
 */
final class RunnerFactory {
  private final SetpointClient client;
  private final SharedCache cache;
  private final MeterRegistry meters;
  private final Clock clock;
  private final Ticker ticker;
  /** Null when the manager does not trace. */
  private final Tracer tracer;
  private final Duration drain;
  private final Faults faults;
  /** The election SINGLETON controllers write fenced by; null when leadership comes from elsewhere. */
  private final LeaseElection election;
  /** The shard group of SHARDED controllers; null when there is none. */
  private final Sharding sharding;
  /** Kept across unregistering and registering again: a gauge binds its value holder only once. */
  private final Map<String, ControllerMetrics> metrics = new ConcurrentHashMap<>();
  /** Kept across unregistering and registering again, like the meters. */
  private final Map<String, ReconcileHistory> histories = new ConcurrentHashMap<>();

  RunnerFactory(SetpointClient client, SharedCache cache, MeterRegistry meters, Clock clock, Ticker ticker,
      Tracer tracer, Duration drain, Faults faults, LeaseElection election, Sharding sharding) {
    this.client = client;
    this.cache = cache;
    this.meters = meters;
    this.clock = clock;
    this.ticker = ticker;
    this.tracer = tracer;
    this.drain = drain;
    this.faults = faults;
    this.election = election;
    this.sharding = sharding;
  }

  /** The supervisor that runs {@code controller}, restarting its runner when it fails. */
  Supervisor supervisor(ControllerSpec controller) {
    ControllerMetrics counted = metrics(controller.name());
    return new Supervisor(controller.name(), () -> runner(controller, counted), drain, ticker, faults);
  }

  /** The supervisor that runs {@code loop}, with the manager's meters and ticker. */
  Supervisor supervisor(Loop<?, ?> loop) {
    ControllerMetrics counted = metrics(loop.name());
    return new Supervisor(loop.name(), () -> new LoopEngine<>(loop, counted, ticker, faults), drain, ticker, faults);
  }

  /** The reconcile history of {@code name}; null when nothing of that name ever ran here. */
  ReconcileHistory history(String name) {
    return histories.get(name);
  }

  /** What a reconcile of {@code controller} gets: its client, the cache, a logger, events, the clock. */
  ControllerTools tools(ControllerSpec controller) {
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

  /** See {@link Manager#reconcileOnce}: one reconcile, with a primed cache and the runtime's tools, but no queue. */
  Result reconcileOnce(ControllerSpec controller, Request request) throws Exception {
    controller.addIndexesAndQueries(cache);
    if (!cache.awaitPrimed(controller.cachedTypes(), Duration.ofMinutes(1))) {
      throw new IllegalStateException("the cache of " + controller.name() + " was not primed within a minute");
    }
    return controller.reconciler().reconcile(ReconcileOnce.context(controller.name()), tools(controller), request);
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
}
