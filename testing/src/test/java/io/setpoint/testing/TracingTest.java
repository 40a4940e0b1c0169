package io.setpoint.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.Any;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.setpoint.api.Ids;
import io.setpoint.api.v1.Resource;
import io.setpoint.demo.ArtistController;
import io.setpoint.demo.DemoControllers;
import io.setpoint.demo.DemoTypes;
import io.setpoint.demo.v2.Artist;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * With an OpenTelemetry SDK handed to the agent, one trace runs from a client's write to the
 * reconcile it caused: the write's server span, the controller's queue wait and reconcile as its
 * children, and the reconciler's own calls inside the reconcile, each with its server span.
 */
class TracingTest {
  private static final InMemorySpanExporter SPANS = InMemorySpanExporter.create();
  private static final OpenTelemetrySdk OTEL = OpenTelemetrySdk.builder()
      .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(SPANS)).build())
      .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance()))
      .build();
  private static final String WRITE = "setpoint.resource.v1.ResourceService/Write";
  private static final AttributeKey<String> RESOURCE = AttributeKey.stringKey("setpoint.resource");
  private static final String TRACED = "demo.v2.Artist/default/default/traced";

  @RegisterExtension
  static final SetpointExtension setpoint = SetpointExtension.builder()
      .agent(agent -> agent.types(DemoTypes::register).controllers(DemoControllers::register).openTelemetry(OTEL))
      .build();

  @AfterAll
  static void closeSdk() {
    OTEL.close();
  }

  @Test
  void oneTraceRunsFromAWriteToTheReconcileItCausedAndTheReconcilersOwnCalls() {
    // Ready means the controllers' caches are primed: the write below reaches them as an event, not
    // in their first listing (a STARTUP trigger, caused by no write).
    HttpClient http = HttpClient.newHttpClient();
    URI readyz = URI.create("http://127.0.0.1:" + setpoint.agent().port() + "/readyz");
    await().atMost(Duration.ofSeconds(30)).until(
        () -> http.send(HttpRequest.newBuilder(readyz).build(), HttpResponse.BodyHandlers.ofString()).statusCode() == 200);
    Resource artist = setpoint.client().write(Resource.newBuilder()
        .setId(Ids.of(DemoTypes.ARTIST, "traced"))
        .setData(Any.pack(Artist.newBuilder().setName("Traced").addDiscography("First").build())).build());
    setpoint.awaitCondition(artist.getId(), ArtistController.STATUS_KEY, "Accepted");

    // The test's client does not trace: the server span of its write starts the trace.
    SpanData write = await().atMost(Duration.ofSeconds(30)).until(() -> SPANS.getFinishedSpanItems().stream()
        .filter(s -> s.getName().equals(WRITE) && s.getKind() == SpanKind.SERVER && !s.getParentSpanContext().isValid()
            && TRACED.equals(s.getAttributes().get(RESOURCE)))
        .findFirst(), Optional::isPresent).orElseThrow();
    String trace = write.getTraceId();

    Optional<SpanData> caused;
    try {
      caused = await().atMost(Duration.ofSeconds(30)).until(() -> inTrace(trace).stream()
          .filter(s -> s.getName().equals("reconcile demo-artist")).findFirst(), Optional::isPresent);
    } catch (ConditionTimeoutException e) {
      throw new AssertionError("no reconcile in the trace of the write " + write + "; the reconciles: "
          + SPANS.getFinishedSpanItems().stream().filter(s -> s.getName().startsWith("reconcile")).toList(), e);
    }
    SpanData reconcile = caused.orElseThrow();
    assertThat(reconcile.getParentSpanId()).as("the reconcile's parent is the write").isEqualTo(write.getSpanId());
    assertThat(reconcile.getAttributes().asMap().toString()).contains("demo.v2.Artist", "traced", "success");
    assertThat(inTrace(trace)).anySatisfy(s -> {
      assertThat(s.getName()).isEqualTo("queue demo-artist");
      assertThat(s.getParentSpanId()).isEqualTo(write.getSpanId());
    });
    // The album the reconciler wrote: its client span inside the reconcile, and the server's span of it.
    SpanData albumWrite = inTrace(trace).stream()
        .filter(s -> s.getName().equals(WRITE) && s.getKind() == SpanKind.CLIENT
            && s.getParentSpanId().equals(reconcile.getSpanId()))
        .findFirst().orElseThrow(() -> new AssertionError("no client write inside the reconcile: " + inTrace(trace)));
    assertThat(inTrace(trace)).anySatisfy(s -> {
      assertThat(s.getName()).isEqualTo(WRITE);
      assertThat(s.getKind()).isEqualTo(SpanKind.SERVER);
      assertThat(s.getParentSpanId()).isEqualTo(albumWrite.getSpanId());
    });
  }

  private static List<SpanData> inTrace(String traceId) {
    return SPANS.getFinishedSpanItems().stream().filter(s -> s.getTraceId().equals(traceId)).toList();
  }
}
