package io.setpoint.storage.raft;

import static io.setpoint.storage.conformance.Fixtures.id;
import static io.setpoint.storage.conformance.Fixtures.resource;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.setpoint.storage.StorageException;
import io.setpoint.storage.raft.v1.Batch;
import io.setpoint.storage.raft.v1.BatchReply;
import io.setpoint.storage.raft.v1.Forward;
import io.setpoint.storage.raft.v1.Op;
import io.setpoint.storage.raft.v1.Outcome;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The leader's side of forwarding, on a batcher whose batches the test answers: writes forwarded
 * by different members share the leader's batches, and each member gets the outcomes of its own.
 */
class ForwardedWritesTest {
  private final List<Batch> sent = new ArrayList<>();
  private final List<CompletableFuture<BatchReply>> replies = new ArrayList<>();
  private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
  private final WriteBatcher batcher =
      new WriteBatcher(this::send, CompletableFuture::completedFuture, 100, 1 << 20, 1, Duration.ofMinutes(1), Long.MAX_VALUE, timer, Runnable::run);
  private final List<String> told = new ArrayList<>();
  private final ForwardedWrites forwarded = new ForwardedWrites(told::add);

  @AfterEach
  void stopTimer() {
    timer.shutdownNow();
  }

  private CompletableFuture<BatchReply> send(Batch batch) {
    sent.add(batch);
    CompletableFuture<BatchReply> reply = new CompletableFuture<>();
    replies.add(reply);
    return reply;
  }

  private static Forward forward(String from, String... names) {
    Batch.Builder batch = Batch.newBuilder();
    for (String name : names) {
      batch.addOps(Op.newBuilder().setWrite(resource(id(name))));
    }
    return Forward.newBuilder().setFrom(from).setBatch(batch).build();
  }

  /** Answers batch {@code i} with one outcome per op, numbered from {@code firstRevision}. */
  private void answer(int i, long firstRevision) {
    BatchReply.Builder reply = BatchReply.newBuilder();
    for (int k = 0; k < sent.get(i).getOpsCount(); k++) {
      reply.addOutcomes(Outcome.newBuilder().setRevision(firstRevision + k).setWritten(true));
    }
    replies.get(i).complete(reply.build());
  }

  private static List<String> names(Batch batch) {
    return batch.getOpsList().stream().map(op -> op.getWrite().getId().getName()).toList();
  }

  private static List<Long> revisions(CompletableFuture<BatchReply> reply) {
    return reply.join().getOutcomesList().stream().map(Outcome::getRevision).toList();
  }

  @Test
  void forwardsFromDifferentMembersShareTheLeadersNextBatchAndEachGetsItsOwnOutcomes() {
    forwarded.open(batcher, () -> true);
    CompletableFuture<Outcome> leaderOwn = batcher.submit(Op.newBuilder().setWrite(resource(id("l1"))).build());
    assertThat(sent).as("the leader's own write holds the only slot").hasSize(1);

    CompletableFuture<BatchReply> fromN2 = forwarded.commit(forward("n2", "a1", "a2"));
    CompletableFuture<BatchReply> fromN3 = forwarded.commit(forward("n3", "b1"));
    assertThat(sent).as("both forwards wait for the slot").hasSize(1);

    answer(0, 10);
    assertThat(leaderOwn.join().getRevision()).isEqualTo(10);
    assertThat(sent).hasSize(2);
    assertThat(names(sent.get(1))).as("one batch, one log entry, for both members' writes")
        .containsExactly("a1", "a2", "b1");
    assertThat(fromN2).isNotDone();

    answer(1, 11);
    assertThat(revisions(fromN2)).containsExactly(11L, 12L);
    assertThat(revisions(fromN3)).containsExactly(13L);
  }

  @Test
  void aForwardingMemberIsToldOfTheCommitWhenNoNewerEntryWouldBringIt() {
    forwarded.open(batcher, () -> true);
    CompletableFuture<BatchReply> first = forwarded.commit(forward("n2", "a"));
    batcher.submit(Op.newBuilder().setWrite(resource(id("l1"))).build());
    answer(0, 1);
    assertThat(sent).as("the leader's own write left in the next batch").hasSize(2);
    assertThat(first).isCompleted();
    assertThat(told).as("the next entry carries the commit index to n2").isEmpty();

    CompletableFuture<BatchReply> second = forwarded.commit(forward("n3", "b"));
    answer(1, 2);
    answer(2, 3);
    assertThat(sent).as("nothing queued behind the forward").hasSize(3);
    assertThat(second).isCompleted();
    assertThat(told).containsExactly("n3");
  }

  @Test
  void aForwardBeforeTheBatcherIsAttachedIsTurnedAway() {
    assertThatThrownBy(() -> forwarded.commit(forward("n2", "a")).join())
        .cause()
        .isInstanceOf(ForwardedWrites.TurnedAway.class)
        .hasMessage("this member is still starting");
    assertThat(sent).isEmpty();
  }

  @Test
  void aForwardToAMemberThatDoesNotLeadIsTurnedAwayWithNothingQueued() {
    forwarded.open(batcher, () -> false);
    assertThatThrownBy(() -> forwarded.commit(forward("n2", "a")).join())
        .cause()
        .isInstanceOf(ForwardedWrites.TurnedAway.class)
        .hasMessage("this member does not lead");
    assertThat(sent).isEmpty();
  }

  @Test
  void aFailedBatchFailsTheForwardsInIt() {
    forwarded.open(batcher, () -> true);
    CompletableFuture<BatchReply> fromN2 = forwarded.commit(forward("n2", "a"));
    StorageException lost = new StorageException(StorageException.Reason.UNAVAILABLE, "leadership lost");
    replies.getFirst().completeExceptionally(lost);
    assertThatThrownBy(fromN2::join).hasCause(lost);
  }
}
