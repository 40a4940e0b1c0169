package io.setpoint.storage.raft;

import io.setpoint.api.Resources;
import io.setpoint.api.v1.Fence;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.storage.engine.StoreEngine;
import io.setpoint.storage.raft.v1.Delete;
import io.setpoint.storage.raft.v1.Op;
import io.setpoint.storage.raft.v1.Outcome;
import io.setpoint.storage.raft.v1.Put;

/**
 * The backend's writes as the ops of a log entry, and the outcomes the state machine answers as
 * what each write returns or throws.
 */
final class RaftOps {
  private RaftOps() {}

  /** A compare-and-swap write; see {@link io.setpoint.storage.Backend#writeCas}. */
  static Op write(Resource resource, Fence fence, String requestId) {
    return fenced(Op.newBuilder().setWrite(resource).setRequestId(requestId), fence);
  }

  /** A blind write; see {@link io.setpoint.storage.Backend#putAsync}. */
  static Op put(Resource resource, Fence fence, String requestId, String uid, String generation) {
    return fenced(Op.newBuilder()
        .setPut(Put.newBuilder().setResource(resource).setUid(uid).setGeneration(generation))
        .setRequestId(requestId), fence);
  }

  /** A compare-and-swap delete; see {@link io.setpoint.storage.Backend#deleteCas}. */
  static Op delete(ID id, String version, Fence fence, String requestId) {
    return fenced(Op.newBuilder().setDelete(Delete.newBuilder().setId(id).setVersion(version))
        .setRequestId(requestId), fence);
  }

  /** The op, carrying the fence only when there is one (most writes have none: no bytes spent). */
  private static Op fenced(Op.Builder op, Fence fence) {
    return StoreEngine.fences(fence) ? op.setFence(fence).build() : op.build();
  }

  /** What the write of {@code resource} stored. */
  static Resource written(Resource resource, Outcome outcome) {
    return switch (outcome.getResultCase()) {
      case WRITTEN -> Resources.withVersion(resource, Long.toString(outcome.getRevision()));
      case REPEATED -> outcome.getRepeated();
      case FAILURE -> throw RaftErrors.refused(outcome);
      default -> throw RaftErrors.unexpected(outcome);
    };
  }

  /** What a blind write stored, or found stored. */
  static Resource stored(Outcome outcome) {
    return switch (outcome.getResultCase()) {
      case STORED -> outcome.getStored();
      case UNCHANGED -> outcome.getUnchanged();
      case REPEATED -> outcome.getRepeated();
      case FAILURE -> throw RaftErrors.refused(outcome);
      default -> throw RaftErrors.unexpected(outcome);
    };
  }

  /** What a delete deleted; null for nothing, or for a repeat. */
  static Resource deleted(Outcome outcome) {
    return switch (outcome.getResultCase()) {
      case DELETED -> outcome.getDeleted();
      case NOTHING_DELETED, REPEATED -> null;
      case FAILURE -> throw RaftErrors.refused(outcome);
      default -> throw RaftErrors.unexpected(outcome);
    };
  }
}
