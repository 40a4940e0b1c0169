package io.setpoint.spring.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.Any;
import io.setpoint.api.Ids;
import io.setpoint.api.Statuses.Conditions;
import io.setpoint.api.v1.Resource;
import io.setpoint.client.SetpointClient;
import io.setpoint.controller.Controller;
import io.setpoint.controller.Manager;
import io.setpoint.demo.ArtistController;
import io.setpoint.demo.DemoTypes;
import io.setpoint.demo.v2.Artist;
import io.setpoint.resource.Registry;
import io.setpoint.server.Agent;
import java.time.Duration;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * {@link SetpointTest} starts an agent with the test's types, points the app at it, and the app's
 * controller bean reconciles there.
 */
@SetpointTest(types = SetpointTestSliceTest.DemoRegistrar.class, classes = SetpointTestSliceTest.App.class)
class SetpointTestSliceTest {
  @Autowired
  SetpointClient client;

  @Autowired
  Agent agent;

  @Autowired
  Manager manager;

  @Autowired
  @Qualifier("setpointHealthIndicator")
  HealthIndicator health;

  @Test
  void theAppTalksToTheTestsAgentAndItsControllerReconciles() {
    assertThat(client.address()).isEqualTo("127.0.0.1:" + agent.port());
    assertThat(agent.registry().resolve(DemoTypes.ARTIST)).isPresent();

    Resource artist = client.write(Resource.newBuilder().setId(Ids.of(DemoTypes.ARTIST, "sun-ra"))
        .setData(Any.pack(Artist.newBuilder().setName("Sun Ra").build())).build());

    await().atMost(Duration.ofSeconds(10)).until(() -> client.findConsistent(artist.getId())
        .map(r -> r.getStatusMap().containsKey(ArtistController.STATUS_KEY)
            && Conditions.holds(r.getStatusMap().get(ArtistController.STATUS_KEY), "Accepted"))
        .orElse(false));
    // The app's manager did it, not the agent's: the agent runs no demo controller. A reconcile is
    // recorded once it returns, after the status it wrote can be read.
    await().atMost(Duration.ofSeconds(10)).until(() -> !manager.reconciles("demo-artist", 10).isEmpty());
    assertThat(agent.manager().controllers()).extracting(Manager.ControllerState::name).doesNotContain("demo-artist");
    assertThat(health.health().getStatus().getCode()).isEqualTo("UP");
  }

  /** The agent's types. */
  public static final class DemoRegistrar implements Consumer<Registry> {
    @Override
    public void accept(Registry registry) {
      DemoTypes.register(registry);
    }
  }

  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class App {
    @Bean
    Controller artists() {
      return ArtistController.controller();
    }
  }
}
