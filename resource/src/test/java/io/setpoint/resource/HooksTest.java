package io.setpoint.resource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.Any;
import com.google.protobuf.ByteString;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Tenancy;
import io.setpoint.api.v1.Type;
import org.junit.jupiter.api.Test;

/** {@link Hooks#decode}: the admission hooks' view of a resource's data. */
class HooksTest {
  private static final Tenancy TENANCY = Tenancy.newBuilder().setPartition("p").setNamespace("n").build();

  @Test
  void decodesDataOfTheExpectedMessage() {
    Decoded<Tenancy> decoded = Hooks.decode(withData(Any.pack(TENANCY)), Tenancy.class);

    assertThat(decoded.data()).isEqualTo(TENANCY);
  }

  @Test
  void dataOfAnotherMessageBreaksTheDataTypeRule() {
    Resource other = withData(Any.pack(Type.newBuilder().setGroup("g").build()));

    assertThatThrownBy(() -> Hooks.decode(other, Tenancy.class))
        .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.violations())
            .singleElement()
            .satisfies(v -> {
              assertThat(v.field()).isEqualTo("data");
              assertThat(v.rule()).isEqualTo("data-type");
              assertThat(v.message()).contains("setpoint.resource.v1.Type").contains(Tenancy.class.getName());
            }));
  }

  @Test
  void aTypeUrlWithoutAPrefixIsNotTheMessageItNames() {
    // Any.is(type) accepts only "<prefix>/<full name>"; the bare name is not a type URL.
    Resource bare = withData(Any.newBuilder()
        .setTypeUrl(Tenancy.getDescriptor().getFullName())
        .setValue(TENANCY.toByteString())
        .build());

    assertBreaks(bare, "data-type");
  }

  @Test
  void bytesThatDoNotParseBreakTheDecodableRule() {
    Resource garbled = withData(Any.pack(TENANCY).toBuilder()
        .setValue(ByteString.copyFrom(new byte[] {(byte) 0x0a, (byte) 0xff}))
        .build());

    assertBreaks(garbled, "decodable");
  }

  @Test
  void missingDataIsRequired() {
    assertBreaks(Resource.getDefaultInstance(), "required");
  }

  private static void assertBreaks(Resource resource, String rule) {
    assertThatThrownBy(() -> Hooks.decode(resource, Tenancy.class))
        .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.violations())
            .singleElement()
            .satisfies(v -> {
              assertThat(v.field()).isEqualTo("data");
              assertThat(v.rule()).isEqualTo(rule);
            }));
  }

  private static Resource withData(Any data) {
    return Resource.newBuilder().setData(data).build();
  }
}
