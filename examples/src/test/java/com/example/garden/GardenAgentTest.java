package com.example.garden;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.example.garden.v1.Plant;
import io.setpoint.api.Statuses.Conditions;
import io.setpoint.api.Types;
import io.setpoint.api.v1.Resource;
import io.setpoint.client.SetpointClient;
import io.setpoint.server.Agent;
import io.setpoint.testing.TestResource;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The embedded main's agent, over a real port: it serves the garden types and runs the controller. */
class GardenAgentTest {
  @Test
  void theEmbeddedAgentServesPlantsAndSchedulesThem() {
    try (Agent agent = GardenAgent.start("-port", "0");
        SetpointClient client = SetpointClient.connect("127.0.0.1:" + agent.port())) {
      assertThat(client.types().getTypesList())
          .anySatisfy(t -> assertThat(Types.format(t.getType())).isEqualTo("garden.v1.Plant"));

      Resource rose = TestResource.of(GardenTypes.PLANT, "rose")
          .data(Plant.newBuilder().setSpecies("Rosa canina").build())
          .createIn(client);

      await().atMost(Duration.ofSeconds(10)).until(() -> {
        Resource current = client.readConsistent(rose.getId());
        return current.getStatusMap().containsKey(PlantController.STATUS_KEY)
            && Conditions.holds(current.getStatusOrThrow(PlantController.STATUS_KEY), "Scheduled");
      });
    }
  }

  @Test
  void badFlagsAreNamed() {
    assertThatThrownBy(() -> GardenAgent.start("-port", "eighty"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("-port must be a number, was eighty");
    assertThatThrownBy(() -> GardenAgent.start("-port"))
        .hasMessage("-port needs a number");
    assertThatThrownBy(() -> GardenAgent.start("-verbose"))
        .hasMessage("unknown argument -verbose");
    assertThatThrownBy(() -> GardenAgent.start("-port", "70000"))
        .hasMessage("port must be within 0..65535, was 70000");
  }
}
