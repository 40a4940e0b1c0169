package io.setpoint.controller;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.setpoint.controller.queue.Trigger;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * The spans of a controller's reconciles: for each run a {@code queue NAME} span (the wait, ready,
 * in the work queue) and a {@code reconcile NAME} span, both in the trace of the first trigger that
 * carries one (the write behind a watch event), the reconcile linked to the others' traces. The
 * reconcile span is current while the reconciler runs, so its client calls join the trace. Times
 * come from the manager's clock.
 */
final class ReconcileTracing {
  private static final TextMapGetter<String> TRACEPARENT = new TextMapGetter<>() {
    @Override
    public Iterable<String> keys(String carrier) {
      return List.of("traceparent");
    }

    @Override
    public String get(String carrier, String key) {
      return "traceparent".equals(key) ? carrier : null;
    }
  };

  private final Tracer tracer;
  private final Clock clock;
  private final String controller;

  ReconcileTracing(Tracer tracer, Clock clock, String controller) {
    this.tracer = tracer;
    this.clock = clock;
    this.controller = controller;
  }

  /** One traced run; {@link #end} it on the thread that started it. */
  record Run(Span span, Scope scope, Clock clock) {
    void end(String result, String message) {
      span.setAttribute("setpoint.result", result);
      if (ControllerMetrics.ERROR.equals(result)) {
        span.setStatus(StatusCode.ERROR, message);
      }
      scope.close();
      span.end(clock.instant());
    }
  }

  /** Starts the spans of a run of {@code key} that waited {@code queueWait} and runs now. */
  Run start(String key, List<Trigger> triggers, Duration queueWait) {
    Context parent = Context.root();
    SpanBuilder reconcile = tracer.spanBuilder("reconcile " + controller)
        .setAttribute("setpoint.controller", controller)
        .setAttribute("setpoint.resource", key)
        .setAttribute("setpoint.triggers", triggers.toString());
    boolean parented = false;
    for (Trigger t : triggers) {
      SpanContext cause = context(t.traceparent());
      if (cause == null) {
        continue;
      }
      if (!parented) {
        parent = Context.root().with(Span.wrap(cause));
        parented = true;
      } else {
        reconcile.addLink(cause);
      }
    }
    Instant now = clock.instant();
    Span span = reconcile.setParent(parent).setStartTimestamp(now).startSpan();
    // Beside the reconcile under its cause; without one, under the reconcile, so both share a trace.
    tracer.spanBuilder("queue " + controller)
        .setParent(parented ? parent : parent.with(span))
        .setAttribute("setpoint.resource", key)
        .setStartTimestamp(now.minus(queueWait))
        .startSpan()
        .end(now);
    return new Run(span, span.makeCurrent(), clock);
  }

  private static SpanContext context(String traceparent) {
    if (traceparent.isEmpty()) {
      return null;
    }
    SpanContext context = Span.fromContext(
        W3CTraceContextPropagator.getInstance().extract(Context.root(), traceparent, TRACEPARENT)).getSpanContext();
    return context.isValid() ? context : null;
  }
}
