package com.example.garden;

import com.example.garden.v1.Plant;
import io.setpoint.api.Statuses;
import io.setpoint.api.Statuses.Conditions;
import io.setpoint.api.v1.Status;
import io.setpoint.controller.Controller;
import io.setpoint.controller.Result;

/**
 * Schedules every {@code garden.v1.Plant}: reports in its status a {@code Scheduled} condition
 * saying how often it is watered. The same controller runs in an embedded agent ({@link
 * GardenAgent}) or in its own JVM against a remote one ({@link RemoteGarden}).
 */
public final class PlantController {
  /** The status key the controller writes. */
  public static final String STATUS_KEY = "garden.example.com/plant";

  private PlantController() {}

  // snippet:start controller
  /** The controller, for a manager to run. */
  public static Controller controller() {
    return Controller.forType(GardenTypes.PLANT)
        .named("garden-plant")
        // Called with each plant decoded; a plant deleted needs nothing (TypedReconciler.deleted).
        .reconciler(Plant.class, (plant, ctx, tools) -> {
          int days = plant.data().getWaterEveryDays();
          Status desired = Conditions.set(
                  Status.newBuilder().setObservedGeneration(plant.resource().getGeneration()),
                  Conditions.isTrue("Scheduled", "Scheduled", "watered every " + days + " day(s)"))
              .build();
          // Writing a status wakes this controller again: write only what changed.
          if (!Statuses.equal(plant.resource(), STATUS_KEY, desired)) {
            tools.client().writeStatus(plant.id(), STATUS_KEY, desired);
          }
          return Result.done();
        });
  }
  // snippet:end controller
}
