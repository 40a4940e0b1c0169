package io.setpoint.storage.engine;

import static io.setpoint.storage.conformance.Fixtures.assertFails;
import static io.setpoint.storage.conformance.Fixtures.changed;
import static io.setpoint.storage.conformance.Fixtures.id;
import static io.setpoint.storage.conformance.Fixtures.resource;
import static org.assertj.core.api.Assertions.assertThat;

import io.setpoint.api.v1.Resource;
import io.setpoint.storage.StorageException.Reason;
import io.setpoint.storage.engine.StoreEngine.Limits;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link ResourceIndex#forEachLiveAt}: the whole store as of one revision, read beside the writer. */
class ResourceIndexAtRevisionTest {
  @Test
  void readsEveryResourceLiveAtTheRevisionWhateverCameAfter() {
    ResourceIndex index = new ResourceIndex(Limits.DEFAULT);
    Resource a = index.write(resource(id("a"))).resource();
    Resource b = index.write(resource(id("b"))).resource();
    long at = index.revision();
    index.write(changed(a, "two"));
    index.delete(id("b"), "");
    index.write(resource(id("c")));

    List<Resource> seen = new ArrayList<>();
    index.forEachLiveAt(at, bytes -> seen.add(Entry.decode(bytes)));
    List<Resource> now = new ArrayList<>();
    index.forEachLiveAt(index.revision(), bytes -> now.add(Entry.decode(bytes)));

    assertThat(seen).containsExactly(a, b);
    assertThat(now).extracting(r -> r.getId().getName()).containsExactly("a", "c");
    assertThat(now.getFirst().getVersion()).isEqualTo("3");
  }

  @Test
  void aRevisionWhoseHistoryWasCutFailsWithCompacted() {
    ResourceIndex index = new ResourceIndex(new Limits(2, 16));
    Resource a = index.write(resource(id("a"))).resource();
    for (int i = 0; i < 3; i++) {
      a = index.write(changed(a, "v" + i)).resource();
    }
    assertThat(index.floor()).isGreaterThan(1);

    assertFails(Reason.COMPACTED, () -> {
      index.forEachLiveAt(1, r -> {});
      return null;
    });
  }

  @Test
  void historyCutWhileTheWalkRunsFailsItAtTheEnd() {
    ResourceIndex index = new ResourceIndex(new Limits(2, 16));
    index.write(resource(id("a")));
    index.write(resource(id("b")));
    long at = index.revision();
    List<String> seen = new ArrayList<>();

    // The writer moves on while the walk is between keys: what the walk handed out is not valid.
    assertFails(Reason.COMPACTED, () -> {
      index.forEachLiveAt(at, b -> {
        seen.add(Entry.decode(b).getId().getName());
        if (seen.size() == 1) {
          for (int i = 0; i < 3; i++) {
            index.write(changed(index.read(id("b")), "v" + i));
          }
        }
      });
      return null;
    });
  }
}
