package io.setpoint.storage.engine;

import static io.setpoint.storage.conformance.Fixtures.WIDGET;
import static io.setpoint.storage.conformance.Fixtures.WILDCARD;
import static io.setpoint.storage.conformance.Fixtures.assertFails;
import static io.setpoint.storage.conformance.Fixtures.changed;
import static io.setpoint.storage.conformance.Fixtures.id;
import static io.setpoint.storage.conformance.Fixtures.ownedBy;
import static io.setpoint.storage.conformance.Fixtures.resource;
import static io.setpoint.storage.conformance.Fixtures.tenancy;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.WatchEvent;
import io.setpoint.storage.StorageException.Reason;
import io.setpoint.storage.engine.StoreEngine.Limits;
import io.setpoint.storage.engine.StoreEngine.RetainedHistory;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link IndexRestore#restore(Limits, long, Iterable, RetainedHistory)}: a store restored with the
 * history it retained answers watch resumes and reads from the same revisions as the original.
 */
class ResourceIndexRestoreTest {
  private static final Query ALL = new Query(WIDGET, tenancy(WILDCARD, WILDCARD), "");
  private static final Limits SMALL = new Limits(8, 16);

  /** A store whose history was compacted: creates, updates, deletes, a re-create and an owner. */
  private static ResourceIndex busy() {
    ResourceIndex index = new ResourceIndex(SMALL);
    Resource owner = index.write(resource(id("owner"))).resource();
    Resource a = index.write(resource(id("a"))).resource();
    Resource b = index.write(ownedBy(resource(id("b")), owner.getId())).resource();
    index.write(resource(id("gone")));
    for (int i = 0; i < 4; i++) {
      a = index.write(changed(a, "a" + i)).resource();
    }
    index.delete(id("gone"), "");
    b = index.write(changed(b, "b1")).resource();
    index.delete(b.getId(), b.getVersion());
    index.write(ownedBy(resource(id("b")), owner.getId()));
    index.write(changed(a, "a-last"));
    return index;
  }

  private static List<ByteString> live(ResourceIndex index) {
    List<ByteString> live = new ArrayList<>();
    index.forEachLive(live::add);
    return live;
  }

  private static List<WatchEvent> events(ResourceIndex index, long since) {
    return index.changesSince(since, ALL);
  }

  private static List<Resource> at(ResourceIndex index, long revision) {
    List<Resource> seen = new ArrayList<>();
    index.forEachLiveAt(revision, b -> seen.add(Entry.decode(b)));
    return seen;
  }

  @Test
  void aRestoredStoreResumesWatchesAndReadsFromTheSameRevisions() {
    ResourceIndex original = busy();
    assertThat(original.floor()).as("the history was compacted").isGreaterThan(1);

    ResourceIndex restored =
        IndexRestore.restore(SMALL, original.revision(), live(original), original.retainedHistory());

    assertThat(restored.revision()).isEqualTo(original.revision());
    assertThat(restored.floor()).isEqualTo(original.floor());
    for (long since = original.floor(); since <= original.revision(); since++) {
      assertThat(events(restored, since)).as("changes after %d", since).isEqualTo(events(original, since));
      assertThat(at(restored, since)).as("live at %d", since).isEqualTo(at(original, since));
    }
    long belowFloor = original.floor() - 1;
    assertFails(Reason.COMPACTED, () -> restored.changesSince(belowFloor, ALL));
    Resource owner = original.read(id("owner"));
    assertThat(restored.listByOwner(owner.getId())).isEqualTo(original.listByOwner(owner.getId()));

    // Both go on alike, compacting the history they were given.
    Resource next = resource(id("next"));
    assertThat(restored.write(next).entry().revision()).isEqualTo(original.write(next).entry().revision());
    assertThat(restored.floor()).isEqualTo(original.floor());
    assertThat(events(restored, restored.floor())).isEqualTo(events(original, original.floor()));
  }

  @Test
  void aLiveResourceIsRestoredFromItsIdOwnerAndVersionAloneAndKeptWhole() {
    Resource owner = resource(id("owner")).toBuilder().setVersion("1").build();
    Resource owned = changed(ownedBy(resource(id("b")), owner.getId()), "payload").toBuilder()
        .setVersion("2").putMetadata("k", "v").build();

    assertThat(IndexRestore.head(owned.toByteString()))
        .isEqualTo(Resource.newBuilder().setId(owned.getId()).setOwner(owner.getId()).setVersion("2").build());
    assertThat(IndexRestore.head(owner.toByteString()).hasOwner()).isFalse();
    assertThatThrownBy(() -> IndexRestore.head(ByteString.copyFrom(new byte[] {10, 5, 1})))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("does not parse");

    ResourceIndex restored = IndexRestore.restore(SMALL, 2, List.of(owner.toByteString(), owned.toByteString()),
        RetainedHistory.none(2));
    assertThat(restored.read(owned.getId())).isEqualTo(owned);
    assertThat(restored.listByOwner(owner.getId())).containsExactly(owned);
  }

  @Test
  void smallerLimitsKeepTheNewestOfTheHistory() {
    ResourceIndex original = busy();
    Limits fewer = new Limits(3, 16);

    ResourceIndex restored =
        IndexRestore.restore(fewer, original.revision(), live(original), original.retainedHistory());

    assertThat(restored.floor()).isEqualTo(original.revision() - 3);
    assertThat(events(restored, restored.floor())).isEqualTo(events(original, restored.floor()));
    assertThat(live(restored)).isEqualTo(live(original));
  }

  @Test
  void aHistoryThatDoesNotEndInTheLiveResourcesIsRefused() {
    ResourceIndex original = busy();
    List<ByteString> live = live(original);
    live.removeFirst();

    assertThatThrownBy(() -> IndexRestore.restore(SMALL, original.revision(), live, original.retainedHistory()))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> IndexRestore.restore(
            SMALL, original.revision() + 1, live(original), original.retainedHistory()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("ends at revision");
  }
}
