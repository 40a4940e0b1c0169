package io.setpoint.server;


import static org.assertj.core.api.Assertions.assertThat;

import io.setpoint.api.Ids;
import io.setpoint.api.v1.Resource;
import io.setpoint.storage.memory.MemoryBackend;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class StoreMirrorTest {
  private static Resource token(String name, String uid) {
    return Resource.newBuilder()
        .setId(Ids.of(AclTypes.TOKEN, name).toBuilder().setUid(uid))
        .setGeneration(uid)
        .build();
  }

  @Test
  void awaitKeyReturnsOnceTheStoredValueHasArrivedAndGivesUpOnOneThatNeverDoes() throws Exception {
    MemoryBackend store = new MemoryBackend();
    try (StoreMirror<Resource> mirror = new StoreMirror<>(store, AclTypes.TOKEN, r -> r.getId().getName(), r -> r)) {
      assertThat(mirror.awaitSynced(Duration.ofSeconds(10))).isTrue();

      Resource stored = store.writeCas(token("t1", "01ARZ3NDEKTSV4RRFFQ69G5FAV"));

      assertThat(mirror.awaitKey("t1", Duration.ofSeconds(10))).isTrue();
      assertThat(mirror.get("t1")).isEqualTo(stored);
      assertThat(mirror.awaitKey("never-written", Duration.ofMillis(50))).isFalse();
    }
  }
}
