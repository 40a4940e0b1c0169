package io.setpoint.storage.raft;

import com.google.protobuf.ByteString;
import io.setpoint.storage.StorageException;
import io.setpoint.storage.engine.StoreEngine;
import io.setpoint.storage.engine.StoreEngine.Applied;
import io.setpoint.storage.engine.StoreEngine.Limits;
import io.setpoint.storage.engine.StoreEngine.Result;
import io.setpoint.storage.engine.StoreEngine.RetainedHistory;
import io.setpoint.storage.raft.v1.Batch;
import io.setpoint.storage.raft.v1.BatchReply;
import io.setpoint.storage.raft.v1.Failure;
import io.setpoint.storage.raft.v1.Op;
import io.setpoint.storage.raft.v1.Outcome;
import io.setpoint.storage.raft.v1.Put;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One member's copy of the store: the shared store engine, changed only by applying committed
 * batches in log order (or by restoring a snapshot), so every member holds the same resources at
 * the same revisions.
 *
 * <p>Applying never throws: a refused compare-and-swap is an {@link Outcome}, because an exception
 * out of a Raft state machine stops the member.
 */
final class ReplicatedStore {
  private static final Logger log = LoggerFactory.getLogger(ReplicatedStore.class);
  private final StoreEngine engine;
  private final AppliedRevision applied = new AppliedRevision();
  /**
   * The last Raft log index whose entry this store reflects; only the applier changes it. Ratis
   * numbers entries from 0 (a new cluster's first membership entry, and the snapshot a restored
   * data directory starts from), so a new store reflects none: -1.
   */
  private volatile long logIndex = -1;

  ReplicatedStore(Limits limits) {
    this.engine = new StoreEngine(limits);
  }

  /** The store itself: reads, watches and snapshots are served from it as applied so far. */
  StoreEngine engine() {
    return engine;
  }

  AppliedRevision applied() {
    return applied;
  }

  /** The last Raft log index whose entry this store reflects (-1: none). */
  long logIndex() {
    return logIndex;
  }

  /** Records that this store reflects the log up to {@code index}; called after applying its entry. */
  void appliedThrough(long index) {
    logIndex = index;
  }

  /**
   * Applies a committed batch, op by op, and says what became of each; holding the engine's
   * writer's lock throughout, so that no watch opens midway.
   */
  BatchReply apply(Batch batch) {
    BatchReply reply = engine.exclusively(() -> {
      BatchReply.Builder outcomes = BatchReply.newBuilder();
      for (Op op : batch.getOpsList()) {
        outcomes.addOutcomes(applyOne(op));
      }
      return outcomes.build();
    });
    applied.advance(engine.revision());
    return reply;
  }

  private Outcome applyOne(Op op) {
    try {
      Result result = switch (op.getKindCase()) {
        case WRITE -> engine.write(op.getWrite(), op.getFence(), op.getRequestId());
        case PUT -> {
          Put put = op.getPut();
          yield engine.put(put.getResource(), op.getFence(), op.getRequestId(), put.getUid(), put.getGeneration());
        }
        case DELETE -> engine.delete(op.getDelete().getId(), op.getDelete().getVersion(), op.getFence(), op.getRequestId());
        default -> null;
      };
      return result == null ? failure("INVALID", "log entry holds an operation of no known kind") : outcome(result);
    } catch (StorageException e) {
      return failure(e.reason().name(), e.getMessage());
    } catch (RuntimeException e) {
      // A bug, not a refusal; every member hits it alike, since it depends on the op and state only.
      log.error("applying {} failed", op.getKindCase(), e);
      return failure("INTERNAL", e.toString());
    }
  }

  private static Outcome outcome(Result result) {
    Outcome.Builder outcome = Outcome.newBuilder().setRevision(result.revision());
    switch (result.effect()) {
      case WRITTEN -> outcome.setWritten(true);
      case STORED -> outcome.setStored(result.resource());
      case UNCHANGED -> outcome.setUnchanged(result.resource());
      case REPEATED -> outcome.setRepeated(result.resource());
      case DELETED -> outcome.setDeleted(result.resource());
      case NOTHING_DELETED -> outcome.setNothingDeleted(true);
    }
    return outcome.build();
  }

  private Outcome failure(String reason, String message) {
    return Outcome.newBuilder()
        .setRevision(engine.revision())
        .setFailure(Failure.newBuilder().setReason(reason).setMessage(String.valueOf(message)))
        .build();
  }

  /**
   * Replaces the whole state with a snapshot's and closes every watch: their consumers resume
   * from their last revision, which works as long as the snapshot's {@code history} retains it
   * (older is {@code COMPACTED}, and they list or watch afresh). The store then reflects the log up
   * to {@code logIndex}.
   */
  void restore(
      long revision, List<ByteString> resources, List<Applied> remembered, RetainedHistory history, long logIndex) {
    engine.restore(revision, resources, remembered, history,
        "this member's state was replaced by a snapshot at revision "
            + revision
            + "; resume from the last revision received, or list or watch afresh if that is older than "
            + history.floor());
    this.logIndex = logIndex;
    applied.advance(revision);
  }
}
