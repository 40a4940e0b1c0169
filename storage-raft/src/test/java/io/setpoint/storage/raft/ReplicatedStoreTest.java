package io.setpoint.storage.raft;

import com.google.protobuf.ByteString;
import static io.setpoint.storage.conformance.Fixtures.DEFAULT_TENANCY;
import static io.setpoint.storage.conformance.Fixtures.WIDGET;
import static io.setpoint.storage.conformance.Fixtures.assertFails;
import static io.setpoint.storage.conformance.Fixtures.changed;
import static io.setpoint.storage.conformance.Fixtures.id;
import static io.setpoint.storage.conformance.Fixtures.resource;
import static org.assertj.core.api.Assertions.assertThat;

import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.WatchEvent;
import io.setpoint.storage.Backend.WatchCursor;
import io.setpoint.storage.StorageException.Reason;
import io.setpoint.storage.engine.StoreEngine.Limits;
import io.setpoint.storage.engine.StoreEngine.RetainedHistory;
import io.setpoint.storage.raft.v1.Batch;
import io.setpoint.storage.raft.v1.BatchReply;
import io.setpoint.storage.raft.v1.Delete;
import io.setpoint.storage.raft.v1.Op;
import io.setpoint.storage.raft.v1.Outcome;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ReplicatedStoreTest {
  private static Op write(Resource r) {
    return Op.newBuilder().setWrite(r).build();
  }

  private static Op delete(Resource r, String version) {
    return Op.newBuilder().setDelete(Delete.newBuilder().setId(r.getId()).setVersion(version)).build();
  }

  @Test
  void refusalsAreOutcomesAndOneBatchAppliesInOrderWithARevisionPerChange() {
    ReplicatedStore store = new ReplicatedStore(Limits.DEFAULT);
    Resource a = resource(id("a"));
    BatchReply reply =
        store.apply(
            Batch.newBuilder()
                .addOps(write(a))
                .addOps(write(a)) // a create of what now exists: CAS failure
                .addOps(write(changed(a, "two").toBuilder().setVersion("1").build()))
                .addOps(delete(a, "1")) // stale
                .addOps(delete(a, "2"))
                .addOps(delete(a, ""))
                .build());
    List<Outcome> o = reply.getOutcomesList();
    assertThat(o).hasSize(6);
    assertThat(o.get(0).getWritten()).isTrue();
    assertThat(o.get(0).getRevision()).isEqualTo(1);
    assertThat(o.get(1).getFailure().getReason()).isEqualTo(Reason.CAS_FAILURE.name());
    assertThat(o.get(1).getRevision()).as("a refusal reports the revision it saw").isEqualTo(1);
    assertThat(o.get(2).getRevision()).isEqualTo(2);
    assertThat(o.get(3).getFailure().getReason()).isEqualTo(Reason.CAS_FAILURE.name());
    assertThat(o.get(4).getDeleted().getVersion()).isEqualTo("2");
    assertThat(o.get(4).getRevision()).isEqualTo(3);
    assertThat(o.get(5).getNothingDeleted()).isTrue();
    assertThat(store.applied().get()).isEqualTo(3);
  }

  @Test
  void membersApplyingTheSameLogHoldTheSameState() {
    List<Batch> log = new ArrayList<>();
    Resource a = resource(id("a"));
    Resource b = resource(id("b"));
    log.add(Batch.newBuilder().addOps(write(a)).addOps(write(b)).build());
    log.add(Batch.newBuilder().addOps(write(changed(a, "x").toBuilder().setVersion("1").build())).addOps(delete(b, "")).build());
    log.add(Batch.newBuilder().addOps(write(b)).addOps(write(resource(id("c")))).build());
    ReplicatedStore one = new ReplicatedStore(Limits.DEFAULT);
    ReplicatedStore two = new ReplicatedStore(Limits.DEFAULT);
    for (Batch batch : log) {
      assertThat(two.apply(batch)).isEqualTo(one.apply(batch));
    }
    List<ByteString> first = new ArrayList<>();
    List<ByteString> second = new ArrayList<>();
    one.engine().forEachLive(first::add);
    two.engine().forEachLive(second::add);
    assertThat(second).isEqualTo(first).hasSize(3);
  }

  @Test
  void aWriteRepeatingAnAppliedRequestIsAnsweredWithTheFirstAndKeptThroughASnapshot() {
    ReplicatedStore store = new ReplicatedStore(Limits.DEFAULT);
    Op create = write(resource(id("a"))).toBuilder().setRequestId("req-1").build();
    Outcome first = store.apply(Batch.newBuilder().addOps(create).build()).getOutcomes(0);
    assertThat(first.getWritten()).isTrue();
    Resource stored = store.engine().read(id("a"));

    Outcome repeated = store.apply(Batch.newBuilder().addOps(create).build()).getOutcomes(0);
    assertThat(repeated.getRepeated()).isEqualTo(stored);
    assertThat(store.engine().revision()).as("nothing was written").isEqualTo(first.getRevision());
    assertThat(store.engine().findRequest(id("a"), "req-1")).isEqualTo(stored);

    // A member restored from a snapshot decides the repeat alike.
    ReplicatedStore restored = new ReplicatedStore(Limits.DEFAULT);
    restored.restore(store.engine().revision(), List.of(stored.toByteString()), store.engine().image().requests(),
        RetainedHistory.none(store.engine().revision()), 3);
    assertThat(restored.apply(Batch.newBuilder().addOps(create).build()).getOutcomes(0).getRepeated())
        .isEqualTo(stored);
  }

  @Test
  void restoringASnapshotClosesWatchesAndResumingBeforeItIsCompacted() throws InterruptedException {
    ReplicatedStore store = new ReplicatedStore(Limits.DEFAULT);
    store.apply(Batch.newBuilder().addOps(write(resource(id("a")))).build());
    WatchCursor watch = store.engine().watch(WIDGET, DEFAULT_TENANCY, "", 0);
    assertThat(watch.poll(Duration.ofSeconds(1)).hasUpsert()).isTrue();
    assertThat(watch.poll(Duration.ofSeconds(1)).hasEndOfSnapshot()).isTrue();

    Resource restored = resource(id("z")).toBuilder().setVersion("40").build();
    store.restore(50, List.of(restored.toByteString()), List.of(), RetainedHistory.none(50), 7);

    assertFails(Reason.WATCH_CLOSED, () -> watch.poll(Duration.ofSeconds(1)));
    assertFails(Reason.COMPACTED, () -> store.engine().watch(WIDGET, DEFAULT_TENANCY, "", 1));
    assertThat(store.applied().get()).isEqualTo(50);
    assertThat(store.logIndex()).as("the log index the snapshot was taken at").isEqualTo(7);
    assertThat(store.engine().read(id("z"))).isEqualTo(restored);
    assertFails(Reason.NOT_FOUND, () -> store.engine().read(id("a")));

    WatchCursor fresh = store.engine().watch(WIDGET, DEFAULT_TENANCY, "", 0);
    WatchEvent first = fresh.poll(Duration.ofSeconds(1));
    assertThat(first.getUpsert().getResource()).isEqualTo(restored);
    WatchEvent end = fresh.poll(Duration.ofSeconds(1));
    assertThat(end.hasEndOfSnapshot()).isTrue();
    assertThat(end.getRevision()).isEqualTo(50);
    store.apply(Batch.newBuilder().addOps(write(resource(id("b")))).build());
    assertThat(fresh.poll(Duration.ofSeconds(1)).getRevision())
        .as("revisions continue from the snapshot's")
        .isEqualTo(51);
    WatchCursor resumed = store.engine().watch(WIDGET, DEFAULT_TENANCY, "", 50);
    assertThat(resumed.poll(Duration.ofSeconds(1)).getRevision()).isEqualTo(51);
  }
}
