package io.setpoint.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.DynamicMessage;
import io.setpoint.api.Statuses.Conditions;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Status;
import io.setpoint.controller.Controller;
import io.setpoint.controller.Manager;
import io.setpoint.controller.Result;
import io.setpoint.testkit.GardenTypes;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A controller outside the agent for a type that exists only as a definition applied at runtime:
 * it starts once the type is served, reads the data as a {@code DynamicMessage}, and writes status.
 */
class RuntimeTypeControllerTest {
  private static final String STATUS_KEY = "garden.example.com/size";

  @RegisterExtension final SetpointExtension setpoint = SetpointExtension.builder().build();

  @Test
  void aRemoteControllerReconcilesResourcesOfARuntimeType() {
    setpoint.client().write(GardenTypes.definition(GardenTypes.files(false)));
    await().atMost(Duration.ofSeconds(10)).until(() -> setpoint.client().types().getTypesList().stream()
        .anyMatch(t -> t.getType().equals(GardenTypes.PLANT)));
    Descriptor plant = GardenTypes.plantMessage();
    Controller sizes = Controller.forType(GardenTypes.PLANT).named("plant-sizes").reconciler((ctx, tools, req) -> {
      Resource stored = tools.client().read(req.id());
      DynamicMessage data = DynamicMessage.parseFrom(plant, stored.getData().getValue());
      int height = (Integer) data.getField(plant.findFieldByName("height_cm"));
      Status status = Conditions.set(Status.newBuilder().setObservedGeneration(stored.getGeneration()),
          Conditions.isTrue("Sized", height > 100 ? "Tall" : "Short", height + " cm")).build();
      tools.client().writeStatus(stored.getId(), STATUS_KEY, status);
      return Result.done();
    });
    try (Manager manager = Manager.builder().client(setpoint.client()).build()) {
      manager.register(sizes);
      manager.start();
      Resource fern = setpoint.client().write(GardenTypes.plant("fern", "fern", 40));
      Resource sized = setpoint.awaitCondition(fern.getId(), STATUS_KEY, "Sized");
      assertThat(sized.getStatusOrThrow(STATUS_KEY).getConditions(0).getReason()).isEqualTo("Short");
    }
  }
}
