package io.setpoint.storage.raft;

import static io.setpoint.storage.conformance.Fixtures.id;
import static io.setpoint.storage.conformance.Fixtures.resource;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.setpoint.storage.StorageException;
import io.setpoint.storage.raft.v1.Batch;
import io.setpoint.storage.raft.v1.BatchReply;
import io.setpoint.storage.raft.v1.Op;
import io.setpoint.storage.raft.v1.Outcome;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class WriteBatcherTest {
  private static final long UNBOUNDED = Long.MAX_VALUE;
  /** Records every batch sent and lets the test answer each. */
  private final List<Batch> sent = new ArrayList<>();
  private final List<CompletableFuture<BatchReply>> replies = new ArrayList<>();
  private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();

  @AfterEach
  void stopTimer() {
    timer.shutdownNow();
  }

  /** A batcher of one slot, whose batches go to {@link #send} and are settled once answered. */
  private WriteBatcher batcher(Duration timeout) {
    return new WriteBatcher(this::send, CompletableFuture::completedFuture, 100, 1 << 20, 1, timeout, UNBOUNDED, timer, Runnable::run);
  }

  private CompletableFuture<BatchReply> send(Batch batch) {
    sent.add(batch);
    CompletableFuture<BatchReply> reply = new CompletableFuture<>();
    replies.add(reply);
    return reply;
  }

  private static Op op(String name) {
    return Op.newBuilder().setWrite(resource(id(name))).build();
  }

  /** Answers batch {@code i} with one outcome per op, numbered from {@code firstRevision}. */
  private void answer(int i, long firstRevision) {
    BatchReply.Builder reply = BatchReply.newBuilder();
    for (int k = 0; k < sent.get(i).getOpsCount(); k++) {
      reply.addOutcomes(Outcome.newBuilder().setRevision(firstRevision + k).setWritten(true));
    }
    replies.get(i).complete(reply.build());
  }

  @Test
  void writesArrivingWhileTheOnlySlotIsBusyTravelTogetherInTheNextBatch() throws Exception {
    WriteBatcher batcher = batcher(Duration.ofMinutes(1));
    CompletableFuture<Outcome> first = batcher.submit(op("a"));
    List<CompletableFuture<Outcome>> queued = new ArrayList<>();
    for (String name : List.of("b", "c", "d")) {
      queued.add(batcher.submit(op(name)));
    }
    assertThat(sent).hasSize(1);
    assertThat(sent.getFirst().getOpsCount()).isEqualTo(1);

    answer(0, 1);
    assertThat(first.get().getRevision()).isEqualTo(1);
    assertThat(sent).hasSize(2);
    assertThat(sent.get(1).getOpsList().stream().map(o -> o.getWrite().getId().getName()))
        .containsExactly("b", "c", "d");

    answer(1, 2);
    // Each writer gets the outcome of its own op.
    assertThat(queued.stream().map(f -> f.join().getRevision())).containsExactly(2L, 3L, 4L);
  }

  @Test
  void whileABatchIsSettledItKnowsWhetherTheNextOneIsAlreadyOnItsWay() {
    List<Boolean> sendingWhenSettled = new ArrayList<>();
    WriteBatcher[] batcher = new WriteBatcher[1];
    batcher[0] =
        new WriteBatcher(
            this::send,
            reply -> {
              sendingWhenSettled.add(batcher[0].sending());
              return CompletableFuture.completedFuture(reply);
            },
            100, 1 << 20, 1, Duration.ofMinutes(1), UNBOUNDED, timer, Runnable::run);
    assertThat(batcher[0].sending()).isFalse();
    batcher[0].submit(op("a"));
    batcher[0].submit(op("b"));
    assertThat(batcher[0].sending()).isTrue();

    answer(0, 1);
    answer(1, 2);
    assertThat(sendingWhenSettled)
        .as("the first batch settles with the second sent, the second with nothing left to send")
        .containsExactly(true, false);
    assertThat(batcher[0].sending()).isFalse();
  }

  @Test
  void freeSlotsSendAtOnceAndBatchesRespectTheOpAndByteLimits() {
    int oneOp = op("a").getSerializedSize();
    WriteBatcher batcher = new WriteBatcher(this::send, CompletableFuture::completedFuture, 3, oneOp * 2, 2, Duration.ofMinutes(1), UNBOUNDED, timer, Runnable::run);
    batcher.submit(op("a"));
    batcher.submit(op("b"));
    assertThat(sent).as("two free slots: two batches of one").hasSize(2);
    for (String name : List.of("c", "d", "e", "f", "g")) {
      batcher.submit(op(name));
    }
    answer(0, 1);
    answer(1, 2);
    assertThat(sent.subList(2, sent.size()).stream().map(Batch::getOpsCount))
        .as("the byte limit (two ops) binds before the op limit (three)")
        .containsExactly(2, 2);
    answer(2, 3);
    assertThat(sent.getLast().getOpsCount()).isEqualTo(1);
  }

  @Test
  void aFailedBatchFailsEachOfItsWritesAndFreesTheSlot() {
    WriteBatcher batcher = batcher(Duration.ofMinutes(1));
    CompletableFuture<Outcome> a = batcher.submit(op("a"));
    CompletableFuture<Outcome> b = batcher.submit(op("b"));
    StorageException lost = new StorageException(StorageException.Reason.UNAVAILABLE, "no leader");
    replies.getFirst().completeExceptionally(lost);
    assertThatThrownBy(a::get).isInstanceOf(ExecutionException.class).hasCause(lost);
    assertThat(sent).as("the queued write went on in the freed slot").hasSize(2);
    answer(1, 7);
    assertThat(b.join().getRevision()).isEqualTo(7);
  }

  @Test
  void aReplyWithTooFewOutcomesFailsTheWritesItLeavesOut() {
    WriteBatcher batcher = batcher(Duration.ofMinutes(1));
    batcher.submit(op("a"));
    CompletableFuture<Outcome> b = batcher.submit(op("b"));
    CompletableFuture<Outcome> c = batcher.submit(op("c"));
    answer(0, 1);
    replies.get(1).complete(BatchReply.newBuilder().addOutcomes(Outcome.newBuilder().setRevision(2).setWritten(true)).build());
    assertThat(b.join().getRevision()).isEqualTo(2);
    assertThatThrownBy(c::join).hasCauseInstanceOf(IllegalStateException.class);
  }

  @Test
  void aWriterWaitsNoLongerThanTheTimeoutWhileItsBatchKeepsTheSlot() {
    WriteBatcher batcher = batcher(Duration.ofSeconds(1));
    CompletableFuture<Outcome> a = batcher.submit(op("a"));

    await().atMost(Duration.ofSeconds(10)).until(a::isDone);
    assertThatThrownBy(a::join).hasCauseInstanceOf(TimeoutException.class);
    // Queued only now, so that its own deadline is a full timeout away. Submitted together with a,
    // it shared a's deadline, and whether it was answered in time depended on the machine's speed.
    CompletableFuture<Outcome> b = batcher.submit(op("b"));
    assertThat(sent).as("Raft has not answered the first batch: its slot stays taken").hasSize(1);

    answer(0, 1);
    assertThat(sent).as("the answer frees the slot for the queued write").hasSize(2);
    answer(1, 2);
    assertThat(b.join().getRevision()).isEqualTo(2);
  }

  @Test
  void aBatchFreesItsSlotWhenRaftAnswersAndItsWritersWaitUntilItIsSettled() {
    CompletableFuture<BatchReply> applied = new CompletableFuture<>();
    List<BatchReply> settling = new ArrayList<>();
    WriteBatcher batcher = new WriteBatcher(
        this::send,
        reply -> {
          settling.add(reply);
          return applied;
        },
        100, 1 << 20, 1, Duration.ofMinutes(1), UNBOUNDED, timer, Runnable::run);
    CompletableFuture<Outcome> a = batcher.submit(op("a"));
    CompletableFuture<Outcome> b = batcher.submit(op("b"));

    answer(0, 5);
    assertThat(sent).as("the answer freed the slot for the queued write").hasSize(2);
    assertThat(settling).hasSize(1);
    assertThat(a).as("not settled yet").isNotDone();

    applied.complete(settling.getFirst());
    assertThat(a.join().getRevision()).isEqualTo(5);
    assertThat(b).isNotDone();
  }

  @Test
  void aBatchThatIsNotSettledInTimeFailsItsWriters() {
    WriteBatcher batcher =
        new WriteBatcher(this::send, reply -> new CompletableFuture<>(), 100, 1 << 20, 1, Duration.ofMillis(200), UNBOUNDED, timer, Runnable::run);
    CompletableFuture<Outcome> a = batcher.submit(op("a"));
    answer(0, 1);

    await().atMost(Duration.ofSeconds(10)).until(a::isDone);
    assertThatThrownBy(a::join).hasCauseInstanceOf(TimeoutException.class);
  }

  @Test
  void writersAreAnsweredOnTheAnsweringThreadAndTheNextBatchIsSentByTheSender() {
    List<Runnable> toSend = new ArrayList<>();
    WriteBatcher batcher = new WriteBatcher(
        this::send, CompletableFuture::completedFuture, 100, 1 << 20, 1, Duration.ofMinutes(1), UNBOUNDED, timer, toSend::add);
    CompletableFuture<Outcome> a = batcher.submit(op("a"));
    CompletableFuture<Outcome> b = batcher.submit(op("b"));
    assertThat(sent).as("a free slot sends on the writer's thread").hasSize(1);

    answer(0, 1);
    assertThat(a.join().getRevision()).isEqualTo(1);
    assertThat(sent).as("the queued batch waits for the sender").hasSize(1);
    assertThat(batcher.sending()).as("its slot is taken already").isTrue();

    toSend.forEach(Runnable::run);
    assertThat(sent).hasSize(2);
    answer(1, 2);
    assertThat(b.join().getRevision()).isEqualTo(2);
  }

  @Test
  void aBatchSentAfterOneThatWasAnsweredInTimeStillFailsAtItsOwnDeadline() {
    WriteBatcher batcher = batcher(Duration.ofMillis(300));
    CompletableFuture<Outcome> a = batcher.submit(op("a"));
    answer(0, 1);
    assertThat(a.join().getRevision()).isEqualTo(1);
    CompletableFuture<Outcome> b = batcher.submit(op("b"));

    await().atMost(Duration.ofSeconds(10)).until(b::isDone);
    assertThatThrownBy(b::join)
        .as("the deadline check that was due for a, answered meanwhile, waits on for b")
        .hasCauseInstanceOf(TimeoutException.class);
  }

  @Test
  void aWriteThatWouldOverfillTheQueuesByteBudgetIsRefusedAtOnceAndLaterOnesFitAgain() {
    int oneOp = op("a").getSerializedSize();
    WriteBatcher batcher = new WriteBatcher(
        this::send, CompletableFuture::completedFuture, 100, 1 << 20, 1, Duration.ofMinutes(1), 2L * oneOp, timer, Runnable::run);
    CompletableFuture<Outcome> inFlight = batcher.submit(op("a"));
    CompletableFuture<Outcome> b = batcher.submit(op("b"));
    CompletableFuture<Outcome> c = batcher.submit(op("c"));

    assertThatThrownBy(() -> batcher.submit(op("d")))
        .isInstanceOfSatisfying(StorageException.class, e -> {
          assertThat(e.reason()).isEqualTo(StorageException.Reason.RESOURCE_EXHAUSTED);
          assertThat(e.getMessage()).contains("nothing was written");
        });

    answer(0, 1); // b and c leave the queue as the next batch
    assertThat(inFlight.join().getRevision()).isEqualTo(1);
    CompletableFuture<Outcome> d = batcher.submit(op("d"));
    answer(1, 2);
    answer(2, 4);
    assertThat(List.of(b.join(), c.join(), d.join())).extracting(Outcome::getRevision).containsExactly(2L, 3L, 4L);
    assertThat(sent).extracting(Batch::getOpsCount).containsExactly(1, 2, 1);
  }

  @Test
  void anEmptyQueueTakesAWriteLargerThanItsWholeByteBudget() {
    WriteBatcher batcher = new WriteBatcher(
        this::send, CompletableFuture::completedFuture, 100, 1 << 20, 1, Duration.ofMinutes(1), 1, timer, Runnable::run);
    CompletableFuture<Outcome> a = batcher.submit(op("a"));
    CompletableFuture<Outcome> b = batcher.submit(op("b"));
    answer(0, 1);
    answer(1, 2);
    assertThat(List.of(a.join(), b.join())).extracting(Outcome::getRevision).containsExactly(1L, 2L);
  }

  @Test
  void closingFailsQueuedWritesAndRefusesNewOnes() {
    WriteBatcher batcher = batcher(Duration.ofMinutes(1));
    CompletableFuture<Outcome> inFlight = batcher.submit(op("a"));
    CompletableFuture<Outcome> queued = batcher.submit(op("b"));
    batcher.close();
    assertThatThrownBy(queued::join)
        .cause()
        .isInstanceOfSatisfying(
            StorageException.class,
            e -> assertThat(e.reason()).isEqualTo(StorageException.Reason.UNAVAILABLE));
    assertThatThrownBy(() -> batcher.submit(op("c"))).isInstanceOf(StorageException.class);
    answer(0, 1);
    assertThat(inFlight.join().getRevision()).as("what was sent still completes").isEqualTo(1);
    assertThat(sent).hasSize(1);
  }
}
