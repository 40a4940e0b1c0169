package com.example.garden;

import static org.assertj.core.api.Assertions.assertThat;

import com.example.garden.v1.Plant;
import io.setpoint.api.v1.Resource;
import io.setpoint.resource.Hooks;
import io.setpoint.server.plugin.SetpointPlugin;
import io.setpoint.testing.SetpointExtension;
import io.setpoint.testing.TestResource;
import java.util.List;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The plugin the agent's -plugins finds: named in META-INF/services, and serving the garden. */
class GardenPluginTest {
  private static final SetpointPlugin PLUGIN = ServiceLoader.load(SetpointPlugin.class).findFirst().orElseThrow();

  @RegisterExtension
  static final SetpointExtension setpoint = SetpointExtension.builder()
      .agent(agent -> agent.types(PLUGIN::types).controllers(PLUGIN::controllers))
      .build();

  @Test
  void theServiceFileNamesTheGardenPlugin() {
    List<SetpointPlugin> plugins = ServiceLoader.load(SetpointPlugin.class).stream()
        .map(ServiceLoader.Provider::get)
        .toList();

    assertThat(plugins).singleElement().isInstanceOf(GardenPlugin.class);
  }

  @Test
  void itsTypeHasItsHookAndItsControllerRuns() {
    Resource ivy = TestResource.of(GardenTypes.PLANT, "ivy")
        .data(Plant.newBuilder().setSpecies("Hedera helix").build())
        .createIn(setpoint.client());

    Resource scheduled = setpoint.awaitCondition(ivy.getId(), PlantController.STATUS_KEY, "Scheduled");

    assertThat(Hooks.decode(scheduled, Plant.class).data().getWaterEveryDays()).isEqualTo(7);
  }
}
