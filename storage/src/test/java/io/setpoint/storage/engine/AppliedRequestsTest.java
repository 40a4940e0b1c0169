package io.setpoint.storage.engine;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Any;
import com.google.protobuf.ByteString;
import com.google.protobuf.BytesValue;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Type;
import io.setpoint.storage.engine.StoreEngine.Applied;
import java.util.List;
import org.junit.jupiter.api.Test;

class AppliedRequestsTest {
  private static ID id(String name) {
    return ID.newBuilder()
        .setType(Type.newBuilder().setGroup("demo").setGroupVersion("v1").setKind("Widget"))
        .setName(name)
        .build();
  }

  private static Resource stored(String name, String version, int dataBytes) {
    return Resource.newBuilder()
        .setId(id(name))
        .setVersion(version)
        .setData(Any.pack(BytesValue.of(ByteString.copyFrom(new byte[dataBytes]))))
        .build();
  }

  /** Records a write as the store does: under its key, with the resource encoded. */
  private static void record(AppliedRequests requests, String requestId, Resource stored) {
    requests.record(requestId, StoreKeys.of(stored.getId()), stored.toByteString());
  }

  @Test
  void theOldestAreForgottenPastTheCount() {
    AppliedRequests requests = new AppliedRequests(3, Long.MAX_VALUE);
    for (int i = 1; i <= 5; i++) {
      record(requests, "r" + i, stored("a" + i, Integer.toString(i), 0));
    }
    assertThat(requests.size()).isEqualTo(3);
    assertThat(requests.find("r1", id("a1"))).isNull();
    assertThat(requests.find("r2", id("a2"))).isNull();
    assertThat(requests.find("r3", id("a3")).getVersion()).isEqualTo("3");
    assertThat(requests.entries()).extracting(Applied::requestId).containsExactly("r3", "r4", "r5");
  }

  @Test
  void theOldestAreForgottenPastTheBytesButTheNewestIsAlwaysKept() {
    int size = stored("a", "1", 1000).getSerializedSize();
    AppliedRequests requests = new AppliedRequests(100, 2L * size);
    record(requests, "r1", stored("a", "1", 1000));
    record(requests, "r2", stored("b", "2", 1000));
    record(requests, "r3", stored("c", "3", 1000));
    assertThat(requests.entries()).extracting(Applied::requestId).containsExactly("r2", "r3");

    record(requests, "big", stored("d", "4", 10 * size));
    assertThat(requests.entries()).extracting(Applied::requestId).containsExactly("big");
  }

  @Test
  void anIdIsARepeatOnlyForTheNameItWroteWhateverTheVersionOrUid() {
    AppliedRequests requests = new AppliedRequests();
    record(requests, "r1", stored("a", "7", 0));
    assertThat(requests.find("r1", id("a").toBuilder().setUid("01J0000000000000000000000A").build()))
        .isNotNull();
    assertThat(requests.find("r1", id("b"))).isNull();
    assertThat(requests.find("r2", id("a"))).isNull();
  }

  @Test
  void anIdRecordedAgainIsForgottenWithItsNewestEntry() {
    AppliedRequests requests = new AppliedRequests(2, Long.MAX_VALUE);
    record(requests, "r1", stored("a", "1", 0));
    record(requests, "r1", stored("b", "2", 0));
    record(requests, "r2", stored("c", "3", 0)); // forgets r1's first entry, not its newest
    assertThat(requests.find("r1", id("b"))).isNotNull();
    assertThat(requests.find("r1", id("a"))).isNull();
  }

  @Test
  void entriesRestoreTheSameRequestsInTheSameOrder() {
    AppliedRequests requests = new AppliedRequests();
    record(requests, "r1", stored("a", "1", 0));
    record(requests, "r2", stored("b", "2", 0));
    List<Applied> entries = requests.entries();
    AppliedRequests restored = AppliedRequests.of(entries);
    assertThat(restored.entries()).isEqualTo(entries);
    assertThat(restored.find("r2", id("b"))).isEqualTo(stored("b", "2", 0));
  }
}
