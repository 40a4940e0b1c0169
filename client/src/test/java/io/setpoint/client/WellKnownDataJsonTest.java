package io.setpoint.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.DescriptorProtos.FileDescriptorSet;
import com.google.protobuf.StringValue;
import io.setpoint.api.Types;
import io.setpoint.api.v1.ListTypesResponse;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Type;
import io.setpoint.api.v1.TypeInfo;
import org.junit.jupiter.api.Test;

/** Documents of a type whose data is a well-known type with a one-value JSON form. */
class WellKnownDataJsonTest {
  private static final Type ITEM = Types.of("tour", "v1", "Item");
  private static final ResourceJson JSON = ResourceJson.of(ListTypesResponse.newBuilder()
      .addTypes(TypeInfo.newBuilder().setType(ITEM).setDataMessage("google.protobuf.StringValue"))
      .setDescriptors(FileDescriptorSet.newBuilder().addFile(StringValue.getDescriptor().getFile().toProto()))
      .build());

  @Test
  void aStringValuesOneFieldIsRead() throws Exception {
    Resource item = JSON.parse("{\"id\": {\"type\": \"tour.v1.Item\", \"name\": \"a\"}, \"data\": {\"value\": \"x\"}}");

    assertThat(item.getData().unpack(StringValue.class).getValue()).isEqualTo("x");
  }

  @Test
  void aFieldBesideAStringValuesValueIsRefusedNotDropped() {
    assertThatThrownBy(() -> JSON.parse(
        "{\"id\": {\"type\": \"tour.v1.Item\", \"name\": \"a\"}, \"data\": {\"value\": \"x\", \"colour\": \"red\"}}"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("data.colour: unknown field; the data of tour.v1.Item is a google.protobuf.StringValue, whose one field is value");
  }
}
