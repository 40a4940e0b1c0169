package com.example.nursery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.example.nursery.v1.Seedling;
import com.google.protobuf.Any;
import io.setpoint.api.Ids;
import io.setpoint.api.Statuses.Conditions;
import io.setpoint.api.v1.Condition;
import io.setpoint.api.v1.Resource;
import io.setpoint.client.SetpointClient;
import io.setpoint.spring.test.SetpointTest;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/** The app's controller, run by the app's own manager against the in-memory agent of {@link SetpointTest}. */
// snippet:start setpoint-test
@SetpointTest(types = NurseryTypes.Registrar.class)
class SeedlingControllerTest {
  @Autowired
  SetpointClient client;

  @Test
  void aSeedlingGetsPlannedWithTheDefaultWhenItSaysNothing() {
    Resource basil = client.write(Resource.newBuilder().setId(Ids.of(NurseryTypes.SEEDLING, "basil"))
        .setData(Any.pack(Seedling.newBuilder().setSpecies("Ocimum basilicum").build())).build());
    Resource thyme = client.write(Resource.newBuilder().setId(Ids.of(NurseryTypes.SEEDLING, "thyme"))
        .setData(Any.pack(Seedling.newBuilder().setSpecies("Thymus vulgaris").setDaysToPot(21).build())).build());

    assertThat(awaitPlanned(basil).getMessage()).isEqualTo("potted out after 14 day(s)");
    assertThat(awaitPlanned(thyme).getMessage()).isEqualTo("potted out after 21 day(s)");
  }
  // snippet:end setpoint-test

  private Condition awaitPlanned(Resource seedling) {
    return await().until(() -> client.findConsistent(seedling.getId())
        .map(r -> r.getStatusMap().get(SeedlingController.STATUS_KEY))
        .flatMap(status -> status == null ? Optional.empty() : Conditions.find(status, "Planned"))
        .filter(c -> c.getState() == Condition.State.STATE_TRUE), Optional::isPresent).orElseThrow();
  }
}
