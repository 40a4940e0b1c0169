package com.example.garden;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.example.garden.v1.Plant;
import io.setpoint.api.v1.Resource;
import io.setpoint.client.SetpointClient;
import io.setpoint.resource.Hooks;
import io.setpoint.server.Agent;
import io.setpoint.testing.TestResource;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** target/garden.jar, the jar this build makes, loaded from a plugin directory as -plugins loads it. */
class GardenPluginJarTest {
  @TempDir Path plugins;

  @Test
  void theBuiltJarIsAPluginThatServesTheGarden() throws IOException {
    Files.copy(Path.of("target", "garden.jar"), plugins.resolve("garden.jar"));
    try (Agent agent = Agent.builder().port(0).acls(false).plugins(plugins).start();
        SetpointClient client = SetpointClient.connect("127.0.0.1:" + agent.port())) {
      Resource fern = TestResource.of(GardenTypes.PLANT, "fern")
          .data(Plant.newBuilder().setSpecies("Polypodium vulgare").build())
          .createIn(client);
      // The plugin's mutate hook defaulted the watering; its controller scheduled the plant.
      assertThat(Hooks.decode(fern, Plant.class).data().getWaterEveryDays()).isEqualTo(7);
      await().atMost(Duration.ofSeconds(20)).until(() -> client.read(fern.getId()).getStatusMap()
          .containsKey(PlantController.STATUS_KEY));
    }
  }
}
