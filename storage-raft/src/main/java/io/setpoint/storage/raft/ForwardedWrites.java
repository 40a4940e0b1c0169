package io.setpoint.storage.raft;

import io.setpoint.storage.raft.v1.BatchReply;
import io.setpoint.storage.raft.v1.Forward;
import io.setpoint.storage.raft.v1.Outcome;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * The leader's end of write forwarding. A member that does not lead sends its batch of writes to
 * the leader (a {@link Forward}, on the {@linkplain ForwardService forward stream}) instead of
 * appending a log entry of its own, and the leader's {@link WriteBatcher}
 * takes the writes into its next batch along with its own. So a cluster makes one stream of log
 * entries carrying the writes of every member, rather than a stream per member: fewer entries,
 * fsyncs and replication rounds for the same writes.
 *
 * <p>The state machine exists before the member's batcher, so the batcher is {@linkplain #open
 * attached} once it is built; a forward arriving before that is {@linkplain TurnedAway turned away}.
 */
final class ForwardedWrites {
  /**
   * This member took nothing of a forward, because it does not lead (or not yet): the sender may
   * send it again, to the leader.
   */
  static final class TurnedAway extends RuntimeException {
    TurnedAway(String why) {
      super(why, null, false, false);
    }
  }

  private record Member(WriteBatcher writes, BooleanSupplier leads) {}

  private final Consumer<String> tellCommitted;
  private volatile Member member;

  /**
   * @param tellCommitted sends the named member this leader's commit index now (see
   *     {@link CommitPropagation#tell})
   */
  ForwardedWrites(Consumer<String> tellCommitted) {
    this.tellCommitted = tellCommitted;
  }

  /**
   * From now on forwarded writes join {@code writes}' batches; turned away while {@code leads} is
   * false (this member does not lead, or still applies entries of earlier terms).
   */
  void open(WriteBatcher writes, BooleanSupplier leads) {
    this.member = new Member(writes, leads);
  }

  /**
   * Commits {@code forward}; completes with its outcomes, in the order of its operations, or fails
   * with {@link TurnedAway} when this member took none of them.
   */
  CompletableFuture<BatchReply> commit(Forward forward) {
    Member target = member;
    if (target == null) {
      return CompletableFuture.failedFuture(new TurnedAway("this member is still starting"));
    }
    try {
      if (!target.leads().getAsBoolean()) {
        return CompletableFuture.failedFuture(new TurnedAway("this member does not lead"));
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
