package com.example.garden;

import static org.assertj.core.api.Assertions.assertThat;

import com.example.garden.v1.Plant;
import io.setpoint.api.Statuses.Conditions;
import io.setpoint.api.v1.Resource;
import io.setpoint.client.SetpointClient;
import io.setpoint.controller.Manager;
import io.setpoint.testing.SetpointExtension;
import io.setpoint.testing.TestResource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The remote tier: a server with the garden types and no controller, and the plant controller run
 * by {@link RemoteGarden} over its own gRPC connection, as from another JVM.
 */
class RemoteGardenTest {
  // snippet:start remote-test
  @RegisterExtension
  final SetpointExtension setpoint = SetpointExtension.builder()
      .agent(agent -> agent.types(GardenTypes::register))
      .build();

  @Test
  void theRemoteControllerSchedulesAPlant() {
    Resource fern = TestResource.of(GardenTypes.PLANT, "fern")
        .data(Plant.newBuilder().setSpecies("Nephrolepis exaltata").setWaterEveryDays(3).build())
        .createIn(setpoint.client());

    try (SetpointClient remote = SetpointClient.connect("127.0.0.1:" + setpoint.agent().port());
        Manager manager = RemoteGarden.start(remote)) {
      Resource scheduled = setpoint.awaitCondition(fern.getId(), PlantController.STATUS_KEY, "Scheduled");
      assertThat(Conditions.find(scheduled.getStatusOrThrow(PlantController.STATUS_KEY), "Scheduled"))
          .hasValueSatisfying(c -> assertThat(c.getMessage()).isEqualTo("watered every 3 day(s)"));
    }
  }
  // snippet:end remote-test
}
