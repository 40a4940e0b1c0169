package io.setpoint.storage.engine;

import static io.setpoint.storage.conformance.Fixtures.DEFAULT_TENANCY;
import static io.setpoint.storage.conformance.Fixtures.WIDGET;
import static io.setpoint.storage.conformance.Fixtures.assertFails;
import static io.setpoint.storage.conformance.Fixtures.changed;
import static io.setpoint.storage.conformance.Fixtures.id;
import static io.setpoint.storage.conformance.Fixtures.resource;
import static org.assertj.core.api.Assertions.assertThat;

import io.setpoint.api.v1.Resource;
import io.setpoint.storage.Backend.Page;
import io.setpoint.storage.StorageException.Reason;
import io.setpoint.storage.engine.StoreEngine.Limits;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The history's byte budget: what it counts, what it compacts first, and what a reader then sees. */
class ResourceIndexBytesTest {
  private static final String PAYLOAD = "x".repeat(10_000);
  private static final Query WIDGETS = new Query(WIDGET, DEFAULT_TENANCY, "");

  /** Writes {@code count} large versions of one widget and returns them as stored, oldest first. */
  private static List<Resource> updates(ResourceIndex index, String name, int count) {
    List<Resource> stored = new ArrayList<>();
    Resource r = index.write(resource(id(name))).resource();
    stored.add(r);
    for (int i = 1; i < count; i++) {
      r = index.write(changed(r, i + PAYLOAD)).resource();
      stored.add(r);
    }
    return stored;
  }

  private static long bytes(List<Resource> resources) {
    return resources.stream().mapToLong(Resource::getSerializedSize).sum();
  }

  @Test
  void entriesHoldTheEncodedResourceAndATombstoneSharesTheBytesItDeletes() {
    ResourceIndex index = new ResourceIndex(Limits.DEFAULT);
    ResourceIndex.Written written = index.write(changed(resource(id("w")), PAYLOAD));

    Entry live = written.entry();
    assertThat(live.encodedSize()).isEqualTo(written.resource().getSerializedSize());
    assertThat(live.encoded()).isEqualTo(written.resource().toByteString());
    // Each read decodes afresh: equal resources, no object shared with what the writer holds.
    assertThat(live.resource()).isEqualTo(written.resource()).isNotSameAs(written.resource());

    Entry tombstone = index.delete(id("w"), "").entry();
    assertThat(tombstone.deleted()).isTrue();
    assertThat(Entry.array(tombstone.encoded())).isSameAs(Entry.array(live.encoded()));
    assertThat(index.historyBytes()).isEqualTo(2L * live.encodedSize());
  }

  @Test
  void historyKeepsTheNewestChangesThatFitItsByteBudgetAndCompactsTheOlderOnes() {
    // Each update encodes to a little over 10 KB: three fit, four do not.
    long budget = 35_000;
    ResourceIndex index = new ResourceIndex(new Limits(1024, 16).withHistoryBytes(budget));

    List<Resource> stored = updates(index, "w", 10);

    List<Resource> newest = stored.subList(7, 10);
    assertThat(index.historySize()).isEqualTo(3);
    assertThat(index.historyBytes()).isEqualTo(bytes(newest)).isLessThanOrEqualTo(budget);
    assertThat(index.floor()).isEqualTo(7);
    assertThat(index.changesSince(7, WIDGETS)).extracting(e -> e.getUpsert().getResource()).containsExactlyElementsOf(newest);
    assertThat(assertFails(Reason.COMPACTED, () -> index.changesSince(6, WIDGETS)).getMessage())
        .contains("oldest is 7");
  }

  @Test
  void aPageTokenOfACompactedRevisionFailsWithCompacted() {
    ResourceIndex index = new ResourceIndex(new Limits(1024, 16).withHistoryBytes(50_000));
    index.write(resource(id("a")));
    index.write(resource(id("b")));
    Page first = index.list(WIDGETS, 1, "");

    updates(index, "c", 3); // about 20 KB: revision 2 is still retained
    assertThat(index.list(WIDGETS, 1, first.nextPageToken()).resources())
        .extracting(r -> r.getId().getName()).containsExactly("b");

    updates(index, "d", 6); // another 50 KB: the oldest changes go
    assertThat(index.floor()).isGreaterThan(first.revision());
    assertFails(Reason.COMPACTED, () -> index.list(WIDGETS, 1, first.nextPageToken()));
    // The live resources are never compacted, only the versions they superseded.
    assertThat(index.list(WIDGETS, 0, "").resources()).extracting(r -> r.getId().getName())
        .containsExactly("a", "b", "c", "d");
  }

  @Test
  void aChangeLargerThanTheWholeBudgetIsStillKeptAsTheNewest() {
    ResourceIndex index = new ResourceIndex(new Limits(1024, 16).withHistoryBytes(100));

    List<Resource> stored = updates(index, "big", 3);

    assertThat(index.historySize()).isEqualTo(1);
    assertThat(index.historyBytes()).isEqualTo(stored.get(2).getSerializedSize());
    assertThat(index.changesSince(index.floor(), WIDGETS)).extracting(e -> e.getUpsert().getResource())
        .containsExactly(stored.get(2));
  }

  @Test
  void tombstonesCountAndTheCountBoundStillApplies() {
    ResourceIndex index = new ResourceIndex(new Limits(4, 16).withHistoryBytes(1L << 40));
    List<Resource> stored = updates(index, "w", 3);
    index.delete(stored.get(2).getId(), "");

    assertThat(index.historyBytes()).isEqualTo(bytes(stored) + stored.get(2).getSerializedSize());
    updates(index, "v", 3);
    assertThat(index.historySize()).isEqualTo(4);
    assertThat(index.floor()).isEqualTo(3);
    assertFails(Reason.NOT_FOUND, () -> index.read(id("w")));
  }

  @Test
  void defaultByteBudgetsAreFractionsOfTheMaximumHeap() {
    long max = Runtime.getRuntime().maxMemory();
    assertThat(Limits.DEFAULT.historyBytes()).isEqualTo(max / 8);
    assertThat(Limits.DEFAULT.watchBufferBytes()).isEqualTo(max / 16);
    assertThat(new Limits(2, 3)).isEqualTo(new Limits(2, 3, max / 8, max / 16));
  }
}
