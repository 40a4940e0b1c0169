package io.setpoint.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Any;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.StringValue;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Status;
import org.junit.jupiter.api.Test;

/**
 * {@link Resources#withVersion}, the store's field-by-field copy of every write, must keep every
 * field of a resource but its version.
 */
class ResourcesTest {
  @Test
  void withVersionKeepsEveryFieldOfAResourceButTheVersion() {
    Resource full = Resource.newBuilder()
        .setId(ID.newBuilder().setName("n").setUid("01JCZZZZZZZZZZZZZZZZZZZZZZ"))
        .setOwner(ID.newBuilder().setName("o"))
        .setVersion("1")
        .setGeneration("01JCZZZZZZZZZZZZZZZZZZZZZY")
        .putMetadata("k", "v")
        .putStatus("s", Status.newBuilder().setObservedGeneration("g").build())
        .setData(Any.pack(StringValue.of("data")))
        .build();
    // A field added to Resource later must be added here, and to the copy.
    for (FieldDescriptor field : Resource.getDescriptor().getFields()) {
      assertThat(field.isRepeated() ? full.getRepeatedFieldCount(field) > 0 : full.hasField(field))
          .as("the fixture sets %s", field.getName()).isTrue();
    }

    Resource copy = Resources.withVersion(full, "2");

    assertThat(copy).isEqualTo(full.toBuilder().setVersion("2").build());
  }
}
