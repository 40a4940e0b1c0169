package io.setpoint.storage.raft;

import com.google.protobuf.MessageLite;
import io.setpoint.storage.raft.v1.Batch;
import io.setpoint.storage.raft.v1.BatchReply;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.proto.RaftProtos.RoleInfoProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftGroupMemberId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.raftlog.RaftLog;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.SnapshotRetentionPolicy;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.statemachine.impl.SimpleStateMachineStorage;
import org.apache.ratis.statemachine.impl.SingleFileSnapshotInfo;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;
import org.apache.ratis.util.LifeCycle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Ratis side of a {@link ReplicatedStore}: applies committed log entries to it, writes and
 * loads its snapshots, answers read barriers, and reports leadership and failures.
 *
 * <p>Ratis calls {@link #applyTransaction}, {@link #takeSnapshot} and {@link #reinitialize} from
 * one thread, in log order, which is what makes applying deterministic.
 *
 * <p>Each Raft division gets a state machine of its own, over the member's one store. A division
 * started again after its log failed (see {@link MemberHealth}) replays the log from the latest
 * snapshot, while the store already holds everything up to {@link ReplicatedStore#logIndex()}: so
 * the store is restored from a snapshot only when that is newer, and entries it already holds are
 * skipped. Reads and watches thus carry on as if the division had never stopped.
 */
final class StoreStateMachine extends BaseStateMachine {
  private static final Logger log = LoggerFactory.getLogger(StoreStateMachine.class);

  private final ReplicatedStore store;
  private final RaftActivity activity;
  private final Consumer<Boolean> leadership;
  private final MemberHealth health;
  private final Consumer<Batch> beforeApply;
  private final SimpleStateMachineStorage storage = new SimpleStateMachineStorage();
  /**
   * The snapshot this member last took or loaded. Ratis asks for it on every append (leader and
   * followers alike), and {@link SimpleStateMachineStorage} lists the snapshot directory each time
   * while there is none, which cost a large share of a member's CPU before its first snapshot.
   */
  private volatile SingleFileSnapshotInfo latestSnapshot;
  private final boolean firstDivision;
  private final SnapshotWriter snapshots;
  private static final SnapshotRetentionPolicy KEEP = new SnapshotRetentionPolicy() {
    @Override
    public int getNumSnapshotsRetained() {
      return RatisSettings.SNAPSHOTS_KEPT;
    }
  };
  /** The snapshot {@link StartupCheck} chose and read, until {@link #initialize} restores it. */
  private StartupCheck.Start start;

  /**
   * @param leadership told true when this member becomes a ready leader, false when it stops
   *     leading
   * @param health told when the log cannot be written or applying fails beyond recovery
   * @param beforeApply called with every batch before it is applied; tests make it throw to
   *     inject a failure of the state machine
   * @param firstDivision whether this is the member's first division since the process started,
   *     which starts from {@code start}; a division started again after its log failed loads the
   *     latest snapshot itself, unless the store already holds the log past it
   * @param start the snapshot {@link StartupCheck} chose and read for the first division, null for
   *     none
   */
  StoreStateMachine(
      ReplicatedStore store,
      Consumer<Boolean> leadership,
      MemberHealth health,
      Consumer<Batch> beforeApply,
      boolean firstDivision,
      StartupCheck.Start start,
      RaftActivity activity) {
    this.activity = activity;
    this.snapshots = new SnapshotWriter(activity, this::snapshotWritten);
    this.store = store;
    this.leadership = leadership;
    this.health = health;
    this.beforeApply = beforeApply;
    this.firstDivision = firstDivision;
    this.start = start;
  }

  @Override
  public void initialize(RaftServer server, RaftGroupId groupId, RaftStorage raftStorage)
      throws IOException {
    getLifeCycle()
        .startAndTransition(
            () -> {
              super.initialize(server, groupId, raftStorage);
              storage.init(raftStorage);
              for (Path leftover : SnapshotFile.deleteLeftovers(raftStorage.getStorageDir().getStateMachineDir().toPath())) {
                log.info("deleted {}, left by a snapshot whose writing was interrupted", leftover);
              }
              if (!firstDivision) {
                loadLatestSnapshot();
              } else if (start != null) {
                restore(start.snapshot(), start.contents());
                start = null;
              }
            });
  }

  @Override
  public SimpleStateMachineStorage getStateMachineStorage() {
    return storage;
  }

  @Override
  public SingleFileSnapshotInfo getLatestSnapshot() {
    return latestSnapshot;
  }

  @Override
  public CompletableFuture<Message> applyTransaction(TransactionContext trx) {
    LogEntryProto entry = trx.getLogEntry();
    BatchReply reply = BatchReply.getDefaultInstance();
    if (entry.getIndex() > store.logIndex()) {
      try {
        Batch batch =
            Batch.parseFrom(entry.getStateMachineLogEntry().getLogData().asReadOnlyByteBuffer());
        beforeApply.accept(batch);
        reply = store.apply(batch);
      } catch (IOException | RuntimeException e) {
        // Never throw out of here: Ratis would stop this member. An unreadable entry is unreadable
        // on every member, so all skip it alike; its writers see no outcome and fail.
        log.error("log entry {} is not a batch of operations; skipped", entry.getIndex(), e);
      } catch (Error e) {
        // The entry may be half-applied, so applying must stop: thrown, this makes Ratis stop the
        // division. Say so first, rather than look ready while every write fails.
        try {
          health.fatal(e);
        } catch (RuntimeException | Error reporting) {
          e.addSuppressed(reporting);
        }
        throw e;
      }
      store.appliedThrough(entry.getIndex());
    }
    updateLastAppliedTermIndex(entry.getTerm(), entry.getIndex());
    return CompletableFuture.completedFuture(message(reply));
  }

  /** Ratis's log could not be written: the member stops taking writes until it can again. */
  @Override
  public void notifyLogFailed(Throwable cause, LogEntryProto failedEntry) {
    health.logFailed(cause);
  }

  /**
   * A query is a read barrier: empty, and answered by Ratis once this member has applied the
   * leader's read index. (Forwarded writes take their own stream, {@link ForwardService}.)
   */
  @Override
  public CompletableFuture<Message> query(Message request) {
    return request.getContent().isEmpty()
        ? CompletableFuture.completedFuture(Message.EMPTY)
        : CompletableFuture.failedFuture(new IllegalArgumentException("a query is a read barrier, which is empty"));
  }

  /** {@code proto} as what Ratis carries: a log entry, a query, or a reply to either. */
  static Message message(MessageLite proto) {
    return Message.valueOf(UnsafeByteOperations.unsafeWrap(proto.toByteArray()));
  }

  @Override
  public long takeSnapshot() {
    TermIndex last = getLastAppliedTermIndex();
    // While a restarted division replays entries the store already holds, the store is ahead of
    // the index a snapshot would be labelled with.
    if (last.getTerm() <= 0 || last.getIndex() <= 0 || last.getIndex() < store.logIndex()) {
      return RaftLog.INVALID_LOG_INDEX;
    }
    return snapshots.take(last, store, storage.getSnapshotFile(last.getTerm(), last.getIndex()));
  }

  /**
   * A snapshot the writer finished: the one to send a member that needs it, and to start from. The
   * oldest are removed here too, as Ratis removes them only when it next asks for a snapshot, which
   * a member being stopped never does.
   */
  private synchronized void snapshotWritten(SingleFileSnapshotInfo taken) {
    storage.updateLatestSnapshot(taken);
    SingleFileSnapshotInfo known = latestSnapshot;
    if (known == null || known.getIndex() < taken.getIndex()) {
      latestSnapshot = taken;
    }
    try {
      storage.cleanupOldSnapshots(KEEP);
    } catch (IOException e) {
      log.warn("removing snapshots older than {} failed: {}", taken.getTermIndex(), e.toString());
    }
  }

  @Override
  public void close() throws IOException {
    snapshots.close();
    super.close();
  }

  @Override
  public void pause() {
    if (getLifeCycleState() == LifeCycle.State.RUNNING) {
      getLifeCycle().transition(LifeCycle.State.PAUSING);
      getLifeCycle().transition(LifeCycle.State.PAUSED);
    }
  }

  /** Ratis installed a snapshot from the leader: the state becomes that snapshot's. */
  @Override
  public void reinitialize() throws IOException {
    // A snapshot still being written is of the state about to be replaced.
    if (!snapshots.awaitAndForget()) {
      throw new IOException("a snapshot of this member's store is still being written; cannot load another over it");
    }
    loadLatestSnapshot();
    if (getLifeCycleState() == LifeCycle.State.PAUSED) {
      getLifeCycle().transition(LifeCycle.State.STARTING);
      getLifeCycle().transition(LifeCycle.State.RUNNING);
    }
  }

  /**
   * Makes the latest snapshot on disk this member's state, checked against its checksum; when the
   * store already holds the log past it (a division started again), only Ratis is told where
   * applying resumes, and the entries the store holds are skipped as they are replayed.
   */
  private void loadLatestSnapshot() throws IOException {
    SingleFileSnapshotInfo snapshot = storage.loadLatestSnapshot();
    if (snapshot == null) {
      return;
    }
    if (snapshot.getIndex() <= store.logIndex()) {
      latestSnapshot = snapshot;
      setLastAppliedTermIndex(snapshot.getTermIndex());
      log.info("the store already holds the log up to {}, past the snapshot as of {}", store.logIndex(), snapshot.getTermIndex());
      return;
    }
    Path file = snapshot.getFile().getPath();
    try {
      restore(snapshot, SnapshotFile.readVerified(file));
    } catch (IOException e) {
      throw new IOException("snapshot " + file + " cannot be used: " + e.getMessage(), e);
    }
  }

  private void restore(SingleFileSnapshotInfo snapshot, SnapshotFile.Contents contents) {
    latestSnapshot = snapshot;
    storage.updateLatestSnapshot(snapshot);
    store.restore(contents.revision(), contents.resources(), contents.requests(), contents.history(), snapshot.getIndex());
    setLastAppliedTermIndex(snapshot.getTermIndex());
    log.info(
        "loaded a snapshot of {} resources at revision {} as of log {}",
        contents.resources().size(),
        contents.revision(),
        snapshot.getTermIndex());
  }

  @Override
  public void notifyLeaderReady() {
    leadership.accept(true);
  }

  @Override
  public void notifyLeaderChanged(RaftGroupMemberId member, RaftPeerId newLeader) {
    activity.leaderChanges.incrementAndGet();
    if (!member.getPeerId().equals(newLeader)) {
      leadership.accept(false);
    }
  }

  @Override
  public void notifyServerShutdown(RoleInfoProto roleInfo, boolean allServer) {
    leadership.accept(false);
  }
}
