package io.setpoint.server;

import io.grpc.ForwardingServerCall.SimpleForwardingServerCall;
import io.grpc.ForwardingServerCallListener.SimpleForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.context.propagation.TextMapPropagator;

/**
 * A {@code SERVER} span per gRPC call, named by its method, continuing the trace whose context the
 * caller sent in the headers; the span is current while the handler runs on the call's messages,
 * so what the handler records (the write a watch event came from, say) belongs to it.
 */
final class ServerTracing implements ServerInterceptor {
  private static final TextMapGetter<Metadata> HEADERS = new TextMapGetter<>() {
    @Override
    public Iterable<String> keys(Metadata headers) {
      return headers.keys();
    }

    @Override
    public String get(Metadata headers, String key) {
      return headers == null ? null : headers.get(Metadata.Key.of(key, Metadata.ASCII_STRING_MARSHALLER));
    }
  };

  private final Tracer tracer;
  private final TextMapPropagator propagator;

  public ServerTracing(OpenTelemetry openTelemetry) {
    this.tracer = openTelemetry.getTracer("io.setpoint.server");
    this.propagator = openTelemetry.getPropagators().getTextMapPropagator();
  }

  @Override
  public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
    Context parent = propagator.extract(Context.root(), headers, HEADERS);
    Span span = tracer.spanBuilder(call.getMethodDescriptor().getFullMethodName())
        .setParent(parent)
        .setSpanKind(SpanKind.SERVER)
        .setAttribute("rpc.system", "grpc")
        .startSpan();
    Context context = parent.with(span);
    ServerCall<Q, R> traced = new SimpleForwardingServerCall<>(call) {
      @Override
      public void close(Status status, Metadata trailers) {
        span.setAttribute("rpc.grpc.status_code", status.getCode().value());
        if (!status.isOk()) {
          span.setStatus(StatusCode.ERROR, status.getCode().name());
        }
        span.end();
        super.close(status, trailers);
      }
    };
    ServerCall.Listener<Q> listener;
    try (Scope ignored = context.makeCurrent()) {
      listener = next.startCall(traced, headers);
    }
    return new SimpleForwardingServerCallListener<>(listener) {
      @Override
      public void onMessage(Q message) {
        try (Scope ignored = context.makeCurrent()) {
          super.onMessage(message);
        }
      }

      @Override
      public void onHalfClose() {
        try (Scope ignored = context.makeCurrent()) {
          super.onHalfClose();
        }
      }

      @Override
      public void onCancel() {
        try (Scope ignored = context.makeCurrent()) {
          super.onCancel();
        }
      }
    };
  }
}
