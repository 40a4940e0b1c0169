package io.setpoint.server.plugin;

import io.setpoint.controller.Manager;
import io.setpoint.resource.Registry;

/**
 * A plugin: types with Java hooks and controllers that run inside the agent, loaded from a jar by
 * {@code setpoint agent -plugins DIR} (or {@code Agent.Builder.plugins}). Implement it in a public
 * class with a public no-argument constructor and name that class in the jar's {@code
 * META-INF/services/io.setpoint.server.plugin.SetpointPlugin}; {@link java.util.ServiceLoader}
 * finds it. Every member of a cluster must load the same plugins: see docs/plugins.md.
 *
 * <pre>{@code
 * public final class GardenPlugin implements SetpointPlugin {
 *   public void types(Registry registry) {
 *     registry.register(Registration.of(PLANT, Plant.class).mutate(...).validate(...).build());
 *   }
 *   public void controllers(Manager manager) {
 *     manager.register(PlantController.controller());
 *   }
 * }
 * }</pre>
 */
public interface SetpointPlugin {
  /** How logs and errors name the plugin; its class name unless overridden. */
  default String name() {
    return getClass().getName();
  }

  /** Registers the plugin's types, before the agent serves anything. */
  default void types(Registry registry) {}

  /** Registers the plugin's controllers, which the agent runs like its own. */
  default void controllers(Manager manager) {}
}
