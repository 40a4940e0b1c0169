package io.setpoint.storage.raft;

import io.setpoint.api.Ids;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.storage.StorageException;
import io.setpoint.storage.StorageException.Reason;
import io.setpoint.storage.WatchCursor;
import io.setpoint.storage.engine.AppliedRequests;
import io.setpoint.storage.engine.AppliedRequests.Applied;
import io.setpoint.storage.engine.Entry;
import io.setpoint.storage.engine.Fences;
import io.setpoint.storage.engine.Limits;
import io.setpoint.storage.engine.Query;
import io.setpoint.storage.engine.ResourceIndex;
import io.setpoint.storage.engine.RetainedHistory;
import io.setpoint.storage.engine.WatchHub;
import io.setpoint.storage.raft.v1.Batch;
import io.setpoint.storage.raft.v1.BatchReply;
import io.setpoint.storage.raft.v1.Failure;
import io.setpoint.storage.raft.v1.Op;
import io.setpoint.storage.raft.v1.Outcome;
import io.setpoint.storage.raft.v1.Put;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One member's copy of the store: the shared indexed store and watch fan-out, changed only by
 * applying committed batches in log order (or by restoring a snapshot), so every member holds the
 * same resources at the same revisions.
 *
 * <p>Applying never throws: a refused compare-and-swap is an {@link Outcome}, because an exception
 * out of a Raft state machine stops the member.
 */
final class ReplicatedStore {
  private static final Logger log = LoggerFactory.getLogger(ReplicatedStore.class);
  private final Limits limits;
  private final WatchHub hub;
  /** Serialises applying with watch subscription, so a watch misses no event and sees none twice. */
  private final ReentrantLock writer = new ReentrantLock();
  private final AppliedRevision applied = new AppliedRevision();
  /**
   * The last Raft log index whose entry this store reflects; only the applier changes it. Ratis
   * numbers entries from 0 (a new cluster's first membership entry, and the snapshot a restored
   * data directory starts from), so a new store reflects none: -1.
   */
  private volatile long logIndex = -1;
  /** Replaced whole when a snapshot is restored; readers use whichever they find. */
  private volatile ResourceIndex index;
  /** Guarded by {@link #writer}; replaced whole when a snapshot is restored. */
  private AppliedRequests requests = new AppliedRequests();
  private volatile boolean closed;

  ReplicatedStore(Limits limits) {
    this.limits = limits;
    this.hub = new WatchHub(limits);
    this.index = new ResourceIndex(limits);
  }

  /** The current index, for lock-free reads. */
  ResourceIndex index() {
    return index;
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

  /** Applies a committed batch, op by op, and says what became of each. */
  BatchReply apply(Batch batch) {
    BatchReply.Builder reply = BatchReply.newBuilder();
    writer.lock();
    try {
      for (Op op : batch.getOpsList()) {
        reply.addOutcomes(applyOne(op));
      }
    } finally {
      writer.unlock();
    }
    applied.advance(index.revision());
    return reply.build();
  }

  private Outcome applyOne(Op op) {
    ResourceIndex current = index;
    try {
      switch (op.getKindCase()) {
        case WRITE -> {
          String requestId = op.getRequestId();
          Resource earlier = requestId.isEmpty() ? null : requests.find(requestId, op.getWrite().getId());
          if (earlier != null) {
            return Outcome.newBuilder().setRevision(current.revision()).setRepeated(earlier).build();
          }
          Fences.check(current, op.getFence());
          Entry entry = current.write(op.getWrite());
          hub.publish(entry);
          if (!requestId.isEmpty()) {
            requests.record(requestId, entry.resource());
          }
          return Outcome.newBuilder().setRevision(entry.revision()).setWritten(true).build();
        }
        case PUT -> {
          Put put = op.getPut();
          String requestId = op.getRequestId();
          Resource earlier = requestId.isEmpty() ? null : requests.find(requestId, put.getResource().getId());
          if (earlier != null) {
            return Outcome.newBuilder().setRevision(current.revision()).setRepeated(earlier).build();
          }
          Fences.check(current, op.getFence());
          Entry entry = current.put(put.getResource(), put.getUid(), put.getGeneration());
          if (entry == null) {
            Resource unchanged = current.read(Ids.withoutUid(put.getResource().getId()));
            return Outcome.newBuilder().setRevision(current.revision()).setUnchanged(unchanged).build();
          }
          hub.publish(entry);
          if (!requestId.isEmpty()) {
            requests.record(requestId, entry.resource());
          }
          return Outcome.newBuilder().setRevision(entry.revision()).setStored(entry.resource()).build();
        }
        case DELETE -> {
          ID id = op.getDelete().getId();
          String requestId = op.getRequestId();
          Resource earlier = requestId.isEmpty() ? null : requests.find(requestId, id);
          if (earlier != null) {
            return Outcome.newBuilder().setRevision(current.revision()).setRepeated(earlier).build();
          }
          Fences.check(current, op.getFence());
          Entry tombstone = current.delete(id, op.getDelete().getVersion());
          if (!requestId.isEmpty()) {
            requests.record(requestId, AppliedRequests.deleted(id, tombstone == null ? null : tombstone.resource()));
          }
          if (tombstone == null) {
            return Outcome.newBuilder().setRevision(current.revision()).setNothingDeleted(true).build();
          }
          hub.publish(tombstone);
          return Outcome.newBuilder()
              .setRevision(tombstone.revision())
              .setDeleted(tombstone.resource())
              .build();
        }
        default -> {
          return failure(current, "INVALID", "log entry holds an operation of no known kind");
        }
      }
    } catch (StorageException e) {
      return failure(current, e.reason().name(), e.getMessage());
    } catch (RuntimeException e) {
      // A bug, not a refusal; every member hits it alike, since it depends on the op and state only.
      log.error("applying {} failed", op.getKindCase(), e);
      return failure(current, "INTERNAL", e.toString());
    }
  }

  private static Outcome failure(ResourceIndex current, String reason, String message) {
    return Outcome.newBuilder()
        .setRevision(current.revision())
        .setFailure(Failure.newBuilder().setReason(reason).setMessage(String.valueOf(message)))
        .build();
  }

  /**
   * What the write of {@code id} that carried {@code requestId} stored, if this member applied it
   * and still remembers it. Under the writer's lock, so a write seen in the index (which a reader
   * may see while its batch is still being applied) is found here too.
   */
  Resource findRequest(ID id, String requestId) {
    writer.lock();
    try {
      return requests.find(requestId, id);
    } finally {
      writer.unlock();
    }
  }

  /** The writes with a request id this store remembers, oldest first; called by the applier. */
  List<Applied> requests() {
    return requests.entries();
  }

  /**
   * Replaces the whole state with a snapshot's and closes every watch: their consumers resume
   * from their last revision, which works as long as the snapshot's {@code history} retains it
   * (older is {@code COMPACTED}, and they list or watch afresh). The store then reflects the log up
   * to {@code logIndex}.
   */
  void restore(
      long revision, List<Resource> resources, List<Applied> remembered, RetainedHistory history, long logIndex) {
    ResourceIndex restored = ResourceIndex.restore(limits, revision, resources, history);
    AppliedRequests restoredRequests = AppliedRequests.of(remembered);
    writer.lock();
    try {
      index = restored;
      requests = restoredRequests;
      hub.closeAll(
          "this member's state was replaced by a snapshot at revision "
              + revision
              + "; resume from the last revision received, or list or watch afresh if that is older than "
              + history.floor());
    } finally {
      writer.unlock();
    }
    this.logIndex = logIndex;
    applied.advance(revision);
  }

  /** Calls {@code action} with every live resource of the current revision; called by the applier. */
  void forEachLive(Consumer<Resource> action) {
    index.forEachLive(action);
  }

  /** See {@link io.setpoint.storage.Backend#watch}; served from this member's applied state. */
  WatchCursor watch(Query query, long sinceRevision) {
    return hub.open(writer, () -> index, this::checkOpen, query, sinceRevision);
  }

  /** Ends every open watch with {@code reason}; the store goes on. */
  void closeWatches(String reason) {
    writer.lock();
    try {
      hub.closeAll(reason);
    } finally {
      writer.unlock();
    }
  }

  void close() {
    writer.lock();
    try {
      closed = true;
      hub.closeAll("the store is shutting down");
    } finally {
      writer.unlock();
    }
  }

  private void checkOpen() {
    if (closed) {
      throw new StorageException(Reason.UNAVAILABLE, "the store is shut down");
    }
  }
}
