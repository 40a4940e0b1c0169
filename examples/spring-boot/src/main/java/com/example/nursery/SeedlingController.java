package com.example.nursery;

import com.example.nursery.v1.Seedling;
import io.setpoint.api.Statuses;
import io.setpoint.api.Statuses.Conditions;
import io.setpoint.api.v1.Status;
import io.setpoint.controller.Controller;
import io.setpoint.controller.Result;

/**
 * Plans every {@code nursery.v1.Seedling}: reports in its status a {@code Planned} condition
 * saying when it is potted out. A Spring bean of type {@link Controller} is all the starter needs
 * to run it ({@link NurseryApplication}).
 */
public final class SeedlingController {
  /** The status key the controller writes. */
  public static final String STATUS_KEY = "nursery.example.com/seedling";
  static final int DEFAULT_DAYS_TO_POT = 14;

  private SeedlingController() {}

  /** The controller, for the app's manager to run. */
  public static Controller controller() {
    return Controller.forType(NurseryTypes.SEEDLING)
        .named("nursery-seedling")
        .reconciler(Seedling.class, (seedling, ctx, tools) -> {
          int days = seedling.data().getDaysToPot() == 0 ? DEFAULT_DAYS_TO_POT : seedling.data().getDaysToPot();
          Status desired = Conditions.set(
                  Status.newBuilder().setObservedGeneration(seedling.resource().getGeneration()),
                  Conditions.isTrue("Planned", "Planned", "potted out after " + days + " day(s)"))
              .build();
          // Writing a status wakes this controller again: write only what changed.
          if (!Statuses.equal(seedling.resource(), STATUS_KEY, desired)) {
            tools.client().writeStatus(seedling.id(), STATUS_KEY, desired);
          }
          return Result.done();
        });
  }
}
