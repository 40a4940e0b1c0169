package com.example.garden;

import com.example.garden.v1.Plant;
import io.setpoint.api.Types;
import io.setpoint.api.v1.Type;
import io.setpoint.resource.AclHooks;
import io.setpoint.resource.Hooks;
import io.setpoint.resource.Registration;
import io.setpoint.resource.Registry;
import io.setpoint.resource.Violations;

/** The garden's resource types and their admission hooks. */
public final class GardenTypes {
  // snippet:start register
  /** Namespace-scoped: a plant, watered every {@code water_every_days} days. */
  public static final Type PLANT = Types.of("garden", "v1", "Plant");
  static final int DEFAULT_WATER_EVERY_DAYS = 7;
  static final int MAX_WATER_EVERY_DAYS = 60;

  /** Registers every garden type: what an agent that serves them calls. */
  public static void register(Registry registry) {
    registry.register(
        Registration.of(PLANT, Plant.class)
            // Policies grant read, write and list per type (docs/security.md).
            .acls(AclHooks.perType())
            .mutate(Hooks.decodeAndMutate(Plant.class, GardenTypes::defaults))
            .validate(Hooks.decodeAndValidate(Plant.class, (plant, v) -> validate(plant.data(), v)))
            .build());
  }

  private static Plant defaults(Plant plant) {
    return plant.getWaterEveryDays() == 0
        ? plant.toBuilder().setWaterEveryDays(DEFAULT_WATER_EVERY_DAYS).build()
        : plant;
  }

  private static void validate(Plant plant, Violations v) {
    v.requireNonEmpty("species", plant.getSpecies());
    if (plant.getWaterEveryDays() > MAX_WATER_EVERY_DAYS) {
      v.add("water_every_days", "range", "must be at most " + MAX_WATER_EVERY_DAYS + " days");
    }
  }
  // snippet:end register

  private GardenTypes() {}
}
