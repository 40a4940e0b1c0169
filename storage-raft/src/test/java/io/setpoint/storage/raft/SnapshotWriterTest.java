package io.setpoint.storage.raft;

import com.google.protobuf.ByteString;
import static io.setpoint.storage.conformance.Fixtures.changed;
import static io.setpoint.storage.conformance.Fixtures.id;
import static io.setpoint.storage.conformance.Fixtures.resource;
import static org.assertj.core.api.Assertions.assertThat;

import io.setpoint.api.v1.Resource;
import io.setpoint.storage.engine.StoreEngine.Limits;
import io.setpoint.storage.raft.v1.Batch;
import io.setpoint.storage.raft.v1.Delete;
import io.setpoint.storage.raft.v1.Op;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.raftlog.RaftLog;
import org.apache.ratis.statemachine.impl.SingleFileSnapshotInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Snapshots written beside the apply thread: what a snapshot holds when writes are applied while it
 * is written, when Ratis hears of it, and the fall-back when writes outrun the walk. The test runs
 * the writer's tasks itself, so "while it is written" is a fixed order, not a race.
 */
class SnapshotWriterTest {
  @TempDir Path dir;

  private final List<Runnable> pending = new ArrayList<>();
  private final List<SingleFileSnapshotInfo> written = new ArrayList<>();
  private final RaftActivity activity = new RaftActivity();
  private final SnapshotWriter writer = new SnapshotWriter(activity, written::add, pending::add);

  private static Op write(Resource r) {
    return Op.newBuilder().setWrite(r).build();
  }

  /** Changes resource a {@code times} times, one batch each. */
  private static void update(ReplicatedStore store, String data, int times) {
    for (int i = 0; i < times; i++) {
      store.apply(Batch.newBuilder().addOps(write(changed(store.engine().read(id("a")), data + i))).build());
    }
  }

  private void runPending() {
    List<Runnable> now = new ArrayList<>(pending);
    pending.clear();
    now.forEach(Runnable::run);
  }

  private File file(long index) {
    return dir.resolve("snapshot.1_" + index).toFile();
  }

  @Test
  void aSnapshotHoldsTheStoreAsOfItsTakingWhileLaterWritesAreAppliedAndRatisHearsOfItNextTime() throws IOException {
    ReplicatedStore store = new ReplicatedStore(Limits.DEFAULT);
    Resource a = resource(id("a"));
    store.apply(Batch.newBuilder().addOps(write(a)).addOps(write(resource(id("b")))).build());
    List<ByteString> before = new ArrayList<>();
    store.engine().forEachLive(before::add);

    assertThat(writer.take(TermIndex.valueOf(1, 2), store, file(2))).isEqualTo(RaftLog.INVALID_LOG_INDEX);
    // Applied after the snapshot was taken, before it is written.
    Resource a2 = changed(store.engine().read(id("a")), "two");
    store.apply(Batch.newBuilder()
        .addOps(write(a2))
        .addOps(Op.newBuilder().setDelete(Delete.newBuilder().setId(id("b")).setVersion("")))
        .addOps(write(resource(id("c"))))
        .build());
    assertThat(writer.take(TermIndex.valueOf(1, 3), store, file(3)))
        .as("one snapshot at a time").isEqualTo(RaftLog.INVALID_LOG_INDEX);
    assertThat(pending).hasSize(1);
    runPending();

    SnapshotFile.Contents contents = SnapshotFile.readVerified(file(2).toPath());
    assertThat(contents.revision()).isEqualTo(2);
    assertThat(contents.resources()).isEqualTo(before);
    assertThat(written).singleElement().satisfies(s -> assertThat(s.getIndex()).isEqualTo(2));
    assertThat(Files.exists(file(3).toPath())).isFalse();
    assertThat(activity.snapshots.get()).isEqualTo(1);

    assertThat(writer.take(TermIndex.valueOf(1, 3), store, file(3))).as("reported once").isEqualTo(2);
    assertThat(writer.take(TermIndex.valueOf(1, 3), store, file(3))).isEqualTo(RaftLog.INVALID_LOG_INDEX);
    runPending();
    assertThat(SnapshotFile.readVerified(file(3).toPath()).revision()).isEqualTo(5);
  }

  @Test
  void aLargeStoreIsSnapshotAgainOnlyAfterWritesAmountingToAnEighthOfItsKeys() {
    ReplicatedStore store = new ReplicatedStore(Limits.DEFAULT);
    Batch.Builder creates = Batch.newBuilder();
    for (int i = 0; i < 79; i++) {
      creates.addOps(write(resource(id("r" + i))));
    }
    store.apply(creates.addOps(write(resource(id("a")))).build());
    assertThat(writer.take(TermIndex.valueOf(1, 1), store, file(1))).isEqualTo(RaftLog.INVALID_LOG_INDEX);
    assertThat(pending).as("the first snapshot is written").hasSize(1);
    runPending();
    assertThat(writer.take(TermIndex.valueOf(1, 2), store, file(2))).isEqualTo(1);

    update(store, "u", 9);
    assertThat(writer.take(TermIndex.valueOf(1, 11), store, file(11))).isEqualTo(RaftLog.INVALID_LOG_INDEX);
    assertThat(pending).as("9 writes are fewer than 80 keys / 8").isEmpty();

    update(store, "v", 1);
    assertThat(writer.take(TermIndex.valueOf(1, 12), store, file(12))).isEqualTo(RaftLog.INVALID_LOG_INDEX);
    assertThat(pending).as("the 10th write makes the next snapshot due").hasSize(1);
    runPending();
    assertThat(writer.take(TermIndex.valueOf(1, 13), store, file(13))).isEqualTo(12);
  }

  @Test
  void aSnapshotFinishedButNotReportedIsForgottenWhenAnotherIsLoadedOverTheStore() {
    ReplicatedStore store = new ReplicatedStore(Limits.DEFAULT);
    store.apply(Batch.newBuilder().addOps(write(resource(id("a")))).build());
    assertThat(writer.take(TermIndex.valueOf(1, 1), store, file(1))).isEqualTo(RaftLog.INVALID_LOG_INDEX);
    runPending();

    // Ratis installs a snapshot from the leader at a later index: it must not hear of index 1 after.
    assertThat(writer.awaitAndForget()).isTrue();
    assertThat(writer.take(TermIndex.valueOf(2, 40), store, file(40))).isEqualTo(RaftLog.INVALID_LOG_INDEX);
    assertThat(pending).as("a new snapshot was started instead").hasSize(1);
  }

  @Test
  void aWalkThatLosesItsRevisionToCompactionWritesNothingAndTheNextSnapshotIsCopiedWhenTaken() throws IOException {
    ReplicatedStore store = new ReplicatedStore(new Limits(4, 16));
    store.apply(Batch.newBuilder().addOps(write(resource(id("a")))).build());
    assertThat(writer.take(TermIndex.valueOf(1, 1), store, file(1))).isEqualTo(RaftLog.INVALID_LOG_INDEX);
    update(store, "v", 8); // more changes than the history keeps
    runPending();
    assertThat(written).isEmpty();
    assertThat(Files.exists(file(1).toPath())).isFalse();

    assertThat(writer.take(TermIndex.valueOf(1, 9), store, file(9))).isEqualTo(RaftLog.INVALID_LOG_INDEX);
    Resource asTaken = store.engine().read(id("a"));
    update(store, "w", 8);
    runPending();
    SnapshotFile.Contents contents = SnapshotFile.readVerified(file(9).toPath());
    assertThat(contents.revision()).isEqualTo(9);
    assertThat(contents.resources()).containsExactly(asTaken.toByteString());
    assertThat(writer.take(TermIndex.valueOf(1, 17), store, file(17))).isEqualTo(9);
  }
}
