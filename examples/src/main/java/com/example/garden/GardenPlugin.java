package com.example.garden;

import io.setpoint.controller.Manager;
import io.setpoint.resource.Registry;
import io.setpoint.server.plugin.SetpointPlugin;

/**
 * The garden as a plugin of the standalone agent: {@code setpoint agent -plugins DIR} loads it from
 * {@code target/garden.jar} (named in {@code META-INF/services}) and serves the same types, with
 * the same hooks, and runs the same controller as {@link GardenAgent} (docs/plugins.md).
 */
public final class GardenPlugin implements SetpointPlugin {
  // snippet:start plugin
  @Override
  public void types(Registry registry) {
    GardenTypes.register(registry);
  }

  @Override
  public void controllers(Manager manager) {
    manager.register(PlantController.controller());
  }
  // snippet:end plugin
}
