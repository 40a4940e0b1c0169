package io.setpoint.storage.raft;

import io.setpoint.storage.StorageException;
import io.setpoint.storage.StorageException.Reason;
import io.setpoint.storage.raft.v1.Batch;
import io.setpoint.storage.raft.v1.BatchReply;
import io.setpoint.storage.raft.v1.Forward;
import io.setpoint.storage.raft.v1.Outcome;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The leader's end of write forwarding. A member that does not lead sends its batch of writes to
 * the leader (a {@link Forward}, carried by Raft's transport as a query of the leader's state
 * machine) instead of appending a log entry of its own, and the leader's {@link WriteBatcher}
 * takes the writes into its next batch along with its own. So a cluster makes one stream of log
 * entries carrying the writes of every member, rather than a stream per member: fewer entries,
 * fsyncs and replication rounds for the same writes.
 *
 * <p>The state machine exists before the member's batcher, so the batcher is {@linkplain #open
 * attached} once it is built; a forward arriving before that fails.
 */
final class ForwardedWrites {
  private record Member(WriteBatcher writes, Function<Batch, CompletableFuture<BatchReply>> ownEntry) {}

  private final String self;
  private final Consumer<String> tellCommitted;
  private volatile Member member;

  /**
   * @param self this member's node name
   * @param tellCommitted sends the named member this leader's commit index now (see
   *     {@link CommitPropagation#tell})
   */
  ForwardedWrites(String self, Consumer<String> tellCommitted) {
    this.self = self;
    this.tellCommitted = tellCommitted;
  }

  /**
   * From now on forwarded writes join {@code writes}' batches, except this member's own forwards,
   * which go to {@code ownEntry} as a log entry of their own.
   */
  void open(WriteBatcher writes, Function<Batch, CompletableFuture<BatchReply>> ownEntry) {
    this.member = new Member(writes, ownEntry);
  }

  /**
   * Commits {@code forward}; completes with its outcomes, in the order of its operations. Runs on
   * the Ratis thread that delivers the forward, where Ratis itself appends a client's entries.
   */
  CompletableFuture<BatchReply> commit(Forward forward) {
    Member target = member;
    if (target == null) {
      return CompletableFuture.failedFuture(
          new StorageException(Reason.UNAVAILABLE, "this member is still starting"));
    }
    try {
      if (forward.getFrom().equals(self)) {
        // This member's own forward, sent before it knew it leads: its batcher's only slot waits
        // for this very reply, so queued behind that slot the writes would never be sent.
        return target.ownEntry().apply(forward.getBatch());
      }
      return collect(forward.getFrom(), target.writes(), target.writes().submitAll(forward.getBatch().getOpsList()));
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /**
   * The reply once every outcome is in. The member that forwarded the writes shows them only once
   * it learns that they are committed. The last outcome completes right after the batcher answered
   * its batch and sent whatever had queued meanwhile: a batch in flight then is a newer entry,
   * whose append carries the commit index; with none, the member is told now. (Exact with one
   * batch in flight, the default; with more, a batch in flight may have left before this one was
   * committed, and the member learns of it from a later append or heartbeat.)
   */
  private CompletableFuture<BatchReply> collect(
      String from, WriteBatcher writes, List<CompletableFuture<Outcome>> outcomes) {
    return CompletableFuture.allOf(outcomes.toArray(CompletableFuture[]::new))
        .thenApply(done -> {
          if (!writes.sending()) {
            tellCommitted.accept(from);
          }
          BatchReply.Builder reply = BatchReply.newBuilder();
          outcomes.forEach(outcome -> reply.addOutcomes(outcome.join()));
          return reply.build();
        });
  }
}
