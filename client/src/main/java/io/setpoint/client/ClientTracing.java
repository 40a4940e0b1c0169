package io.setpoint.client;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ForwardingClientCall.SimpleForwardingClientCall;
import io.grpc.ForwardingClientCallListener.SimpleForwardingClientCallListener;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapPropagator;
import io.opentelemetry.context.propagation.TextMapSetter;

/**
 * Traces the calls of a client with OpenTelemetry: a {@code CLIENT} span per call, named by its
 * gRPC method, child of the current span, and the trace context sent along in the call's headers
 * (W3C {@code traceparent}, or whatever propagators {@code openTelemetry} has), so the server's span
 * of the call joins the same trace. {@link SetpointClient.Builder#openTelemetry} installs it, and
 * {@link SetpointClient#over(io.grpc.ManagedChannel, String, OpenTelemetry)} on a caller's channel.
 */
final class ClientTracing implements ClientInterceptor {
  private static final TextMapSetter<Metadata> HEADERS =
      (headers, key, value) -> headers.put(Metadata.Key.of(key, Metadata.ASCII_STRING_MARSHALLER), value);

  private final Tracer tracer;
  private final TextMapPropagator propagator;

  private ClientTracing(OpenTelemetry openTelemetry) {
    this.tracer = openTelemetry.getTracer("io.setpoint.client");
    this.propagator = openTelemetry.getPropagators().getTextMapPropagator();
  }

  /** An interceptor that traces calls with {@code openTelemetry}. */
  static ClientInterceptor of(OpenTelemetry openTelemetry) {
    return new ClientTracing(openTelemetry);
  }

  @Override
  public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
    Span span = tracer.spanBuilder(method.getFullMethodName())
        .setSpanKind(SpanKind.CLIENT)
        .setAttribute("rpc.system", "grpc")
        .startSpan();
    Context context = Context.current().with(span);
    return new SimpleForwardingClientCall<>(next.newCall(method, options)) {
      @Override
      public void start(Listener<R> listener, Metadata headers) {
        propagator.inject(context, headers, HEADERS);
        super.start(new SimpleForwardingClientCallListener<>(listener) {
          @Override
          public void onClose(Status status, Metadata trailers) {
            span.setAttribute("rpc.grpc.status_code", status.getCode().value());
            if (!status.isOk()) {
              span.setStatus(StatusCode.ERROR, status.getCode().name());
            }
            span.end();
            super.onClose(status, trailers);
          }
        }, headers);
      }
    };
  }
}
