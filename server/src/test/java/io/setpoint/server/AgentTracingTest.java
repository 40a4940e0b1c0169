package io.setpoint.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.opentelemetry.sdk.OpenTelemetrySdk;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Which {@code OTEL_*} variables turn the agent's tracing on. */
class AgentTracingTest {
  @Test
  void tracesOnlyWhenTheVariablesAskForTraces() {
    assertThat(AgentTracing.requested(Map.of())).as("nothing set").isFalse();
    assertThat(AgentTracing.requested(Map.of("OTEL_SERVICE_NAME", "x"))).as("a name alone").isFalse();
    assertThat(AgentTracing.requested(Map.of("OTEL_TRACES_EXPORTER", "otlp"))).isTrue();
    assertThat(AgentTracing.requested(Map.of("OTEL_TRACES_EXPORTER", "none"))).isFalse();
    assertThat(AgentTracing.requested(Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318"))).isTrue();
    assertThat(AgentTracing.requested(Map.of("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://collector:4318/v1/traces")))
        .isTrue();
    assertThat(AgentTracing.requested(Map.of("OTEL_TRACES_EXPORTER", "otlp", "OTEL_SDK_DISABLED", "true")))
        .as("disabled wins").isFalse();
  }

  @Test
  void theSdkFromTheEnvironmentTracesAsSetpointAgent() {
    try (OpenTelemetrySdk sdk = AgentTracing.fromEnvironment(Map.of())) {
      assertThat(sdk.getSdkTracerProvider().toString()).contains("service.name=\"setpoint-agent\"");
    }
  }

  @Test
  void otlpOverGrpcIsRefusedSayingWhatToSet() {
    assertThatThrownBy(() -> AgentTracing.fromEnvironment(Map.of("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("OTEL_EXPORTER_OTLP_PROTOCOL=grpc", "http/protobuf", "4318");
  }
}
