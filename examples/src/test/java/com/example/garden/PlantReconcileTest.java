package com.example.garden;

import static org.assertj.core.api.Assertions.assertThat;

import com.example.garden.v1.Plant;
import io.setpoint.api.Statuses.Conditions;
import io.setpoint.api.v1.Resource;
import io.setpoint.controller.Result;
import io.setpoint.testing.SetpointExtension;
import io.setpoint.testing.TestResource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The unit tier: the types but no running controller; each test calls one reconcile itself. */
class PlantReconcileTest {
  // snippet:start unit
  @RegisterExtension
  final SetpointExtension setpoint = SetpointExtension.builder()
      .agent(agent -> agent.types(GardenTypes::register))
      .build();

  @Test
  void oneReconcileSchedulesThePlantAtItsInterval() throws Exception {
    Resource basil = TestResource.of(GardenTypes.PLANT, "basil")
        .data(Plant.newBuilder().setSpecies("Ocimum basilicum").setWaterEveryDays(2).build())
        .createIn(setpoint.client());
    assertThat(basil.getStatusMap()).isEmpty();

    Result result = setpoint.reconcile(PlantController.controller(), basil.getId());

    assertThat(result).isEqualTo(Result.done());
    Resource read = setpoint.client().readConsistent(basil.getId());
    assertThat(Conditions.find(read.getStatusOrThrow(PlantController.STATUS_KEY), "Scheduled"))
        .hasValueSatisfying(c -> assertThat(c.getMessage()).isEqualTo("watered every 2 day(s)"));
  }
  // snippet:end unit

  @Test
  void aSecondReconcileOfAnUnchangedPlantWritesNothing() throws Exception {
    Resource mint = TestResource.of(GardenTypes.PLANT, "mint")
        .data(Plant.newBuilder().setSpecies("Mentha spicata").build())
        .createIn(setpoint.client());
    setpoint.reconcile(PlantController.controller(), mint.getId());
    String version = setpoint.client().readConsistent(mint.getId()).getVersion();

    setpoint.reconcile(PlantController.controller(), mint.getId());

    assertThat(setpoint.client().readConsistent(mint.getId()).getVersion()).isEqualTo(version);
  }
}
