package io.setpoint.storage.engine;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Any;
import com.google.protobuf.StringValue;
import io.setpoint.api.Ids;
import io.setpoint.api.Resources.Finalizers;
import io.setpoint.api.Types;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Status;
import io.setpoint.storage.StorageException;
import io.setpoint.storage.StorageException.Reason;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

/** The rule a store applies a blind write by: what it keeps of the stored resource, what it takes. */
class BlindWriteRuleTest {
  private static final ID ID = Ids.of(Types.of("test", "v1", "Widget"), "a");
  private static final ID OWNER = Ids.of(Types.of("test", "v1", "Gadget"), "o").toBuilder().setUid("01OWNER").build();

  private static Resource input(String text) {
    return Resource.newBuilder().setId(ID).putMetadata("k", "v").setData(Any.pack(StringValue.of(text))).build();
  }

  private static final Resource STORED = input("old").toBuilder()
      .setId(ID.toBuilder().setUid("01STORED"))
      .setOwner(OWNER)
      .setVersion("7")
      .setGeneration("01GEN")
      .putStatus("ctl", Status.newBuilder().setObservedGeneration("01GEN").build())
      .build();

  @Test
  void overNothingCreatesWithTheGivenUidAndGeneration() {
    Resource next = BlindWriteRule.over(null, input("x"), "01NEW", "01NEWGEN");
    assertThat(next.getId().getUid()).isEqualTo("01NEW");
    assertThat(next.getGeneration()).isEqualTo("01NEWGEN");
    assertThat(next.getVersion()).as("a create expects nothing stored").isEmpty();
  }

  @Test
  void overAStoredResourceKeepsItsIdOwnerStatusesAndVersionToSwapAndTakesDataAndMetadata() {
    Resource next = BlindWriteRule.over(STORED, input("new").toBuilder().setOwner(OWNER).putMetadata("k2", "v2").build(), "01NEW", "01NEWGEN");
    assertThat(next.getId()).isEqualTo(STORED.getId());
    assertThat(next.getOwner()).isEqualTo(OWNER);
    assertThat(next.getStatusMap()).isEqualTo(STORED.getStatusMap());
    assertThat(next.getVersion()).isEqualTo("7");
    assertThat(next.getGeneration()).isEqualTo("01NEWGEN");
    assertThat(next.getMetadataMap()).containsOnlyKeys("k", "k2");
  }

  @Test
  void unchangedDataKeepsTheGenerationAndAWriteThatChangesNothingIsTheStoredResource() {
    Resource sameData = input("old").toBuilder().setOwner(OWNER).putMetadata("k2", "v2").build();
    assertThat(BlindWriteRule.over(STORED, sameData, "01NEW", "01NEWGEN").getGeneration()).isEqualTo("01GEN");
    assertThat(BlindWriteRule.over(STORED, input("old").toBuilder().setOwner(OWNER).build(), "01NEW", "01NEWGEN")).isSameAs(STORED);
  }

  @Test
  void leavesToTheCallerWhatNeedsAReadToDecideOrToExplain() {
    assertUndecided(() -> BlindWriteRule.over(null, input("x").toBuilder().setOwner(OWNER).build(), "u", "g"));
    assertUndecided(() -> BlindWriteRule.over(null, input("x").toBuilder().setId(ID.toBuilder().setUid("01GIVEN")).build(), "u", "g"));
    assertUndecided(() -> BlindWriteRule.over(STORED, input("x"), "u", "g"));
    assertUndecided(() -> BlindWriteRule.over(STORED,
        input("x").toBuilder().setOwner(OWNER).setId(ID.toBuilder().setUid("01OTHER")).build(), "u", "g"));
    Resource deleting = STORED.toBuilder().putMetadata(Finalizers.DELETION_TIMESTAMP, "2026-01-01T00:00:00Z").build();
    assertUndecided(() -> BlindWriteRule.over(deleting, input("old").toBuilder().setOwner(OWNER).build(), "u", "g"));
  }

  private static void assertUndecided(ThrowingCallable call) {
    assertThat(org.assertj.core.api.Assertions.catchThrowableOfType(StorageException.class, call).reason())
        .isEqualTo(Reason.UNDECIDED);
  }
}
