package io.setpoint.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.Any;
import io.grpc.Status.Code;
import io.setpoint.api.Ids;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.client.SetpointClient;
import io.setpoint.client.SetpointException;
import io.setpoint.demo.DemoTypes;
import io.setpoint.demo.v2.Artist;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link SetpointClient#findConsistent} against a real agent. */
class FindConsistentTest {
  @RegisterExtension
  static final SetpointExtension setpoint = SetpointExtension.builder()
      .agent(agent -> agent.types(DemoTypes::register))
      .build();

  @Test
  void emptyWhenNothingIsStoredThenTheStoredResource() {
    SetpointClient client = setpoint.client();
    ID id = Ids.of(DemoTypes.ARTIST, "find-consistent");
    assertThat(client.findConsistent(id)).isEmpty();

    Resource stored = client.write(Resource.newBuilder()
        .setId(id)
        .setData(Any.pack(Artist.newBuilder().setName("Alice Coltrane").build()))
        .build());

    assertThat(client.findConsistent(id)).contains(stored);
  }

  @Test
  void otherFailuresStillThrow() {
    ID unnamed = Ids.of(DemoTypes.ARTIST, "");
    assertThatThrownBy(() -> setpoint.client().findConsistent(unnamed))
        .isInstanceOfSatisfying(SetpointException.class, e -> assertThat(e.code()).isEqualTo(Code.INVALID_ARGUMENT));
  }
}
