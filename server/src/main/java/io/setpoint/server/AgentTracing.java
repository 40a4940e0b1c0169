package io.setpoint.server;

import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.autoconfigure.AutoConfiguredOpenTelemetrySdk;
import java.util.Map;

/**
 * The agent's tracing when nothing was handed to {@link Agent.Builder#openTelemetry}: an
 * OpenTelemetry SDK configured by the standard {@code OTEL_*} variables (exporter, endpoint,
 * sampler, resource), built only when they ask for traces. Otherwise the agent installs no tracing
 * interceptor and keeps no write traces.
 */
final class AgentTracing {
  private AgentTracing() {}

  /**
   * Whether {@code env} asks for traces: {@code OTEL_TRACES_EXPORTER} set to other than {@code
   * none}, or an OTLP endpoint given, unless {@code OTEL_SDK_DISABLED=true}.
   */
  static boolean requested(Map<String, String> env) {
    if ("true".equalsIgnoreCase(env.getOrDefault("OTEL_SDK_DISABLED", ""))) {
      return false;
    }
    String exporter = env.getOrDefault("OTEL_TRACES_EXPORTER", "");
    if (!exporter.isBlank()) {
      return !exporter.trim().equals("none");
    }
    return env.containsKey("OTEL_EXPORTER_OTLP_ENDPOINT") || env.containsKey("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT");
  }

  /**
   * The SDK the {@code OTEL_*} variables describe; service {@code setpoint-agent} unless they name
   * one, OTLP over HTTP ({@code http/protobuf}, sent by the JDK's HTTP client).
   *
   * @throws IllegalArgumentException when they ask for OTLP over gRPC, which the agent does not send
   */
  static OpenTelemetrySdk fromEnvironment(Map<String, String> env) {
    for (String name : new String[] {"OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"}) {
      if ("grpc".equalsIgnoreCase(env.getOrDefault(name, "").trim())) {
        throw new IllegalArgumentException(name + "=grpc: the agent sends OTLP over HTTP only;"
            + " set it to http/protobuf and point OTEL_EXPORTER_OTLP_ENDPOINT at the collector's HTTP port (4318)");
      }
    }
    return AutoConfiguredOpenTelemetrySdk.builder()
        // Defaults the variables override: OTLP over HTTP (port 4318), metrics at /metrics, logs on stderr.
        .addPropertiesSupplier(() -> Map.of(
            "otel.service.name", "setpoint-agent",
            "otel.exporter.otlp.protocol", "http/protobuf",
            "otel.metrics.exporter", "none",
            "otel.logs.exporter", "none"))
        .build()
        .getOpenTelemetrySdk();
  }
}
