package io.setpoint.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.Any;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.setpoint.api.Ids;
import io.setpoint.api.Statuses.Conditions;
import io.setpoint.api.v1.Resource;
import io.setpoint.client.SetpointClient;
import io.setpoint.client.SetpointException;
import io.setpoint.controller.Controller;
import io.setpoint.controller.Manager;
import io.setpoint.demo.ArtistController;
import io.setpoint.demo.DemoTypes;
import io.setpoint.controller.loop.Loop;
import io.setpoint.demo.loops.ChecksumLoop;
import io.setpoint.demo.v2.Artist;
import io.setpoint.server.Agent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The starter against a real in-memory agent: the app's controller bean reconciles, its meters
 * land in the app's registry, its reconciles are traced through the app's OpenTelemetry, and the
 * health indicator goes UP; a loop bean runs too; closing the context stops the manager.
 */
class SetpointStarterAgentTest {
  private static Agent agent;
  private static final InMemorySpanExporter SPANS = InMemorySpanExporter.create();

  @TempDir
  static Path files;

  @BeforeAll
  static void startAgent() {
    agent = Agent.builder().port(0).acls(false).types(DemoTypes::register).start();
  }

  @AfterAll
  static void stopAgent() {
    agent.close();
  }

  @Test
  void theAppsControllerReconcilesAndTheHealthIndicatorGoesUp() throws Exception {
    Files.writeString(files.resolve("notes.txt"), "checksum me");
    AtomicReference<Manager> ran = new AtomicReference<>();
    AtomicReference<SetpointClient> used = new AtomicReference<>();
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(SetpointAutoConfiguration.class))
        .withUserConfiguration(App.class)
        .withPropertyValues("setpoint.address=127.0.0.1:" + agent.port())
        .run(context -> {
          assertThat(context).hasNotFailed();
          Manager manager = context.getBean(Manager.class);
          ran.set(manager);
          // The lifecycle registered the controller and loop beans and waited for the cache.
          assertThat(manager.controllers()).extracting(Manager.ControllerState::name).containsExactly("demo-artist");
          assertThat(manager.unprimed()).isEmpty();
          assertThat(manager.loops()).containsEntry("checksums", true);
          await().atMost(Duration.ofSeconds(10)).until(() -> Files.exists(ChecksumLoop.sidecar(files, "notes.txt")));

          SetpointClient client = context.getBean(SetpointClient.class);
          used.set(client);
          Resource artist = client.write(Resource.newBuilder().setId(Ids.of(DemoTypes.ARTIST, "alice"))
              .setData(Any.pack(Artist.newBuilder().setName("Alice Coltrane").build())).build());
          await().atMost(Duration.ofSeconds(10)).until(() -> client.findConsistent(artist.getId())
              .map(r -> r.getStatusMap().containsKey(ArtistController.STATUS_KEY)
                  && Conditions.holds(r.getStatusMap().get(ArtistController.STATUS_KEY), "Accepted"))
              .orElse(false));

          Health health = context.getBean("setpointHealthIndicator", HealthIndicator.class).health();
          assertThat(health.getStatus().getCode()).isEqualTo("UP");
          assertThat(health.getDetails()).containsEntry("agent", "127.0.0.1:" + agent.port())
              .containsEntry("role", "leader").doesNotContainKeys("priming", "stopped", "error");
          assertThat(health.getDetails().get("controllers")).isInstanceOfSatisfying(Map.class,
              controllers -> assertThat(controllers.keySet()).containsExactly("demo-artist"));

          MeterRegistry meters = context.getBean(MeterRegistry.class);
          assertThat(meters.get("controller.runtime.reconcile.time").tag("controller", "demo-artist").timer().count())
              .isPositive();
          assertThat(SPANS.getFinishedSpanItems()).extracting(SpanData::getName).contains("reconcile demo-artist");
        });
    // Closing the context stopped the manager: nothing runs any more.
    assertThat(ran.get().controllers()).noneMatch(Manager.ControllerState::running);
    assertThat(ran.get().loops()).containsEntry("checksums", false);
    // And closed the client.
    assertThatThrownBy(() -> used.get().types()).isInstanceOf(SetpointException.class);
  }

  @Test
  void theHealthIndicatorIsDownWhenTheAgentDoesNotAnswer() {
    int port;
    try (Agent gone = Agent.builder().port(0).acls(false).start()) {
      port = gone.port();
    }
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(SetpointAutoConfiguration.class))
        .withPropertyValues("setpoint.address=127.0.0.1:" + port, "setpoint.health.timeout=5s")
        .run(context -> {
          Health health = context.getBean("setpointHealthIndicator", HealthIndicator.class).health();
          assertThat(health.getStatus().getCode()).isEqualTo("DOWN");
          assertThat(health.getDetails()).containsKey("error");
        });
  }

  @Test
  void theHealthIndicatorIsDownWhileAControllerCannotRun() {
    // An agent that does not serve the controller's type: the controller gives up.
    try (Agent bare = Agent.builder().port(0).acls(false).start()) {
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(SetpointAutoConfiguration.class))
          .withBean(Controller.class, ArtistController::controller)
          .withPropertyValues("setpoint.address=127.0.0.1:" + bare.port())
          .run(context -> {
            assertThat(context).hasNotFailed();
            HealthIndicator indicator = context.getBean("setpointHealthIndicator", HealthIndicator.class);
            await().atMost(Duration.ofSeconds(10)).until(() -> indicator.health().getStatus().getCode().equals("DOWN"));
            Health health = indicator.health();
            assertThat(health.getDetails()).doesNotContainKey("error");
            assertThat(health.getDetails().get("stopped")).asString().contains("demo-artist");
          });
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class App {
    @Bean
    Controller artists() {
      return ArtistController.controller();
    }

    @Bean
    Loop<?, ?> checksums() {
      return ChecksumLoop.loop(files, false, Duration.ofSeconds(30));
    }

    @Bean
    MeterRegistry meterRegistry() {
      return new SimpleMeterRegistry();
    }

    @Bean(destroyMethod = "close")
    OpenTelemetrySdk openTelemetry() {
      return OpenTelemetrySdk.builder()
          .setTracerProvider(SdkTracerProvider.builder()
              .addSpanProcessor(io.opentelemetry.sdk.trace.export.SimpleSpanProcessor.create(SPANS)).build())
          .build();
    }
  }
}
