package com.example.garden;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.example.garden.v1.Plant;
import io.grpc.Status.Code;
import io.setpoint.api.Statuses.Conditions;
import io.setpoint.api.v1.Resource;
import io.setpoint.client.SetpointException;
import io.setpoint.resource.Hooks;
import io.setpoint.testing.SetpointExtension;
import io.setpoint.testing.TestResource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class PlantControllerTest {
  // snippet:start extension
  // A real in-memory server with the garden types and the plant controller, shared by the class.
  @RegisterExtension
  static final SetpointExtension setpoint = SetpointExtension.builder()
      .agent(agent -> agent
          .types(GardenTypes::register)
          .controllers(manager -> manager.register(PlantController.controller())))
      .build();

  @Test
  void aPlantIsDefaultedThenScheduled() {
    Resource tomato = TestResource.of(GardenTypes.PLANT, "tomato")
        .data(Plant.newBuilder().setSpecies("Solanum lycopersicum").build())
        .createIn(setpoint.client());

    Resource scheduled = setpoint.awaitCondition(tomato.getId(), PlantController.STATUS_KEY, "Scheduled");

    assertThat(Hooks.decode(scheduled, Plant.class).data().getWaterEveryDays()).isEqualTo(7);
    assertThat(Conditions.find(scheduled.getStatusOrThrow(PlantController.STATUS_KEY), "Scheduled"))
        .hasValueSatisfying(c -> assertThat(c.getMessage()).isEqualTo("watered every 7 day(s)"));
  }

  @Test
  void aPlantWithoutSpeciesIsRefusedNamingTheField() {
    TestResource nameless = TestResource.of(GardenTypes.PLANT, "nameless")
        .data(Plant.newBuilder().setWaterEveryDays(3).build());

    assertThatThrownBy(() -> nameless.createIn(setpoint.client()))
        .isInstanceOfSatisfying(SetpointException.class, e -> {
          assertThat(e.code()).isEqualTo(Code.INVALID_ARGUMENT);
          assertThat(e.violations()).extracting(SetpointException.FieldViolation::field)
              .containsExactly("resource.data.species");
        });
    assertThat(setpoint.client().findConsistent(nameless.id())).isEmpty();
  }
  // snippet:end extension

  @Test
  void wateringLessOftenThanEverySixtyDaysIsRefused() {
    TestResource cactus = TestResource.of(GardenTypes.PLANT, "cactus")
        .data(Plant.newBuilder().setSpecies("Carnegiea gigantea").setWaterEveryDays(90).build());

    assertThatThrownBy(() -> cactus.createIn(setpoint.client()))
        .isInstanceOfSatisfying(SetpointException.class, e -> assertThat(e.violations())
            .extracting(SetpointException.FieldViolation::field)
            .containsExactly("resource.data.water_every_days"));
  }
}
