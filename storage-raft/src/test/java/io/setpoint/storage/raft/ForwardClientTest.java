package io.setpoint.storage.raft;

import static io.setpoint.storage.conformance.Fixtures.id;
import static io.setpoint.storage.conformance.Fixtures.resource;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.setpoint.storage.StorageException;
import io.setpoint.storage.raft.v1.Batch;
import io.setpoint.storage.raft.v1.BatchReply;
import io.setpoint.storage.raft.v1.Forward;
import io.setpoint.storage.raft.v1.Op;
import io.setpoint.storage.raft.v1.Outcome;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.thirdparty.io.grpc.Metadata;
import org.apache.ratis.thirdparty.io.grpc.Server;
import org.apache.ratis.thirdparty.io.grpc.ServerCall;
import org.apache.ratis.thirdparty.io.grpc.ServerCallHandler;
import org.apache.ratis.thirdparty.io.grpc.ServerInterceptor;
import org.apache.ratis.thirdparty.io.grpc.ServerInterceptors;
import org.apache.ratis.thirdparty.io.grpc.netty.NettyServerBuilder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The forward stream over real gRPC: a member's {@link ForwardClient} against other members'
 * {@link ForwardService}s, whose batches the test commits. A batch is sent again only when it
 * certainly was not taken, and never after it may have been.
 */
class ForwardClientTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(30);
  /** How long a batch waits for a member that no longer leads, on {@link #ticker}. */
  private static final Duration GRACE = Duration.ofSeconds(1);

  private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
  private final ExecutorService resend = Executors.newVirtualThreadPerTaskExecutor();
  private final List<Member> members = new ArrayList<>();
  private final AtomicReference<RaftPeer> leader = new AtomicReference<>();
  private final AtomicInteger leaderAsked = new AtomicInteger();
  private final List<Batch> ownEntries = new CopyOnWriteArrayList<>();
  /** The client's clock: it moves only when a test says, so deadlines pass when a test says. */
  private final AtomicLong ticker = new AtomicLong();
  private ForwardClient client;

  @AfterEach
  void stop() {
    if (client != null) {
      client.close();
    }
    members.forEach(m -> m.server.shutdownNow());
    timer.shutdownNow();
    resend.shutdownNow();
  }

  private ForwardClient client(Duration timeout) {
    client = new ForwardClient("self", () -> {
      leaderAsked.incrementAndGet();
      return leader.get();
    }, batch -> {
      ownEntries.add(batch);
      return CompletableFuture.completedFuture(
          BatchReply.newBuilder().addOutcomes(Outcome.newBuilder().setRevision(99).setWritten(true)).build());
    },
        new ForwardClient.Transport(null, 4 << 20, 1 << 20), timeout, GRACE, ticker::get, timer, resend);
    return client;
  }

  /** A member serving the forward stream; its log entries are the batches it received. */
  private final class Member {
    final String name;
    final Server server;
    final List<Batch> received = new CopyOnWriteArrayList<>();
    final List<CompletableFuture<BatchReply>> entries = new CopyOnWriteArrayList<>();
    final AtomicInteger turnedAway = new AtomicInteger();
    final AtomicInteger streams = new AtomicInteger();
    volatile boolean leads;

    Member(String name, boolean leads) {
      this.name = name;
      this.leads = leads;
      WriteBatcher batcher = new WriteBatcher(this::commit, CompletableFuture::completedFuture, 100, 1 << 20, 1,
          TIMEOUT, Long.MAX_VALUE, timer, Runnable::run);
      ForwardedWrites forwarded = new ForwardedWrites(member -> {});
      forwarded.open(batcher, () -> {
        if (!this.leads) {
          turnedAway.incrementAndGet();
        }
        return this.leads;
      });
      try {
        server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
            .addService(ServerInterceptors.intercept(new ForwardService(forwarded).definition(), new ServerInterceptor() {
              @Override
              public <Q, A> ServerCall.Listener<Q> interceptCall(ServerCall<Q, A> call, Metadata headers, ServerCallHandler<Q, A> next) {
                streams.incrementAndGet();
                return next.startCall(call, headers);
              }
            }))
            .build()
            .start();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      members.add(this);
    }

    RaftPeer peer() {
      return RaftPeer.newBuilder().setId(name).setAddress("127.0.0.1:" + server.getPort()).build();
    }

    private CompletableFuture<BatchReply> commit(Batch batch) {
      CompletableFuture<BatchReply> entry = new CompletableFuture<>();
      received.add(batch);
      entries.add(entry);
      return entry;
    }

    /** Commits entry {@code i}: revisions from {@code first}, one per op. */
    void commitEntry(int i, long first) {
      BatchReply.Builder reply = BatchReply.newBuilder();
      for (int k = 0; k < received.get(i).getOpsCount(); k++) {
        reply.addOutcomes(Outcome.newBuilder().setRevision(first + k).setWritten(true));
      }
      entries.get(i).complete(reply.build());
    }
  }

  private static Forward forward(String... names) {
    Batch.Builder batch = Batch.newBuilder();
    for (String name : names) {
      batch.addOps(Op.newBuilder().setWrite(resource(id(name))));
    }
    return Forward.newBuilder().setFrom("self").setBatch(batch).build();
  }

  /** Waits until the client has asked who leads {@code times} more times from now. */
  private void awaitLeaderAsked(int times) {
    int asked = leaderAsked.get();
    await().until(() -> leaderAsked.get() >= asked + times);
  }

  private static List<Long> revisions(CompletableFuture<BatchReply> reply) {
    return reply.join().getOutcomesList().stream().map(Outcome::getRevision).toList();
  }

  private static StorageException failure(CompletableFuture<BatchReply> reply) {
    try {
      reply.get(10, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      return (StorageException) e.getCause();
    } catch (InterruptedException | TimeoutException e) {
      throw new AssertionError("the batch did not complete", e);
    }
    throw new AssertionError("the batch did not fail: " + reply.join());
  }

  @Test
  void batchesShareOneStreamAndEachGetsItsOwnOutcomes() {
    Member leading = new Member("n1", true);
    leader.set(leading.peer());
    ForwardClient forwards = client(TIMEOUT);

    CompletableFuture<BatchReply> first = forwards.send(forward("a", "b"));
    await().until(() -> leading.received.size() == 1);
    CompletableFuture<BatchReply> second = forwards.send(forward("c"));
    leading.commitEntry(0, 10);
    await().until(() -> leading.received.size() == 2);
    leading.commitEntry(1, 12);

    assertThat(revisions(first)).containsExactly(10L, 11L);
    assertThat(revisions(second)).containsExactly(12L);
    assertThat(leading.streams).hasValue(1);
  }

  @Test
  void aBatchInFlightWhenTheLeaderChangesStillGetsItsAnswerFromTheOldOne() {
    Member old = new Member("n1", true);
    Member next = new Member("n2", true);
    leader.set(old.peer());
    ForwardClient forwards = client(TIMEOUT);
    CompletableFuture<BatchReply> inFlight = forwards.send(forward("a"));
    await().until(() -> old.received.size() == 1);

    leader.set(next.peer());
    CompletableFuture<BatchReply> after = forwards.send(forward("b"));
    await().until(() -> next.received.size() == 1);
    old.commitEntry(0, 5);
    next.commitEntry(0, 6);

    assertThat(revisions(inFlight)).containsExactly(5L);
    assertThat(revisions(after)).containsExactly(6L);
    assertThat(old.received).hasSize(1);
  }

  @Test
  void aBatchStillUnansweredAGraceAfterAnotherMemberLeadsMayStillBeAppliedAndFreesTheWay() {
    Member former = new Member("n1", true);
    Member next = new Member("n2", true);
    leader.set(former.peer());
    ForwardClient forwards = client(TIMEOUT);
    CompletableFuture<BatchReply> stuck = forwards.send(forward("a"));
    await().until(() -> former.received.size() == 1);

    leader.set(next.peer());
    // The client first sees the new leader on one of its checks; the grace runs from there.
    awaitLeaderAsked(1);
    assertThat(stuck).isNotDone();
    ticker.addAndGet(GRACE.toNanos() + 1);

    StorageException failed = failure(stuck);
    assertThat(failed.reason()).isEqualTo(StorageException.Reason.UNAVAILABLE);
    assertThat(failed).hasMessageContaining("may still be applied").hasMessageContaining("no answer from n1")
        .hasMessageContaining("of n2 leading");
    assertThat(next.received).as("not sent again").isEmpty();
    CompletableFuture<BatchReply> after = forwards.send(forward("b"));
    await().until(() -> next.received.size() == 1);
    next.commitEntry(0, 4);
    assertThat(revisions(after)).containsExactly(4L);
  }

  @Test
  void aMomentWithoutALeaderDoesNotCountAgainstTheMemberABatchWentTo() {
    Member leading = new Member("n1", true);
    leader.set(leading.peer());
    CompletableFuture<BatchReply> reply = client(TIMEOUT).send(forward("a"));
    await().until(() -> leading.received.size() == 1);

    leader.set(null);
    awaitLeaderAsked(2);
    ticker.addAndGet(GRACE.toNanos() + 1);
    awaitLeaderAsked(2);
    leader.set(leading.peer());
    leading.commitEntry(0, 8);

    assertThat(revisions(reply)).containsExactly(8L);
  }

  @Test
  void closingFailsABatchThatWaitsForALeader() {
    ForwardClient forwards = client(TIMEOUT);
    CompletableFuture<BatchReply> reply = forwards.send(forward("a"));
    await().until(() -> leaderAsked.get() >= 2);

    forwards.close();

    assertThat(failure(reply)).hasMessage("the store is shut down");
  }

  @Test
  void whenThisMemberLeadsItsBatchIsAnEntryOfItsOwnNotSentOnTheStream() {
    Member other = new Member("n1", true);
    leader.set(RaftPeer.newBuilder().setId("self").setAddress("127.0.0.1:1").build());

    CompletableFuture<BatchReply> own = client(TIMEOUT).send(forward("x"));

    assertThat(revisions(own)).containsExactly(99L);
    assertThat(ownEntries).singleElement().satisfies(batch ->
        assertThat(batch.getOpsList()).extracting(op -> op.getWrite().getId().getName()).containsExactly("x"));
    assertThat(other.received).isEmpty();
    assertThat(other.streams).hasValue(0);
  }

  @Test
  void aBatchTurnedAwayByAMemberThatNoLongerLeadsGoesToTheLeader() {
    Member former = new Member("n1", false);
    Member leading = new Member("n2", true);
    leader.set(former.peer());
    CompletableFuture<BatchReply> reply = client(TIMEOUT).send(forward("a"));

    await().until(() -> former.turnedAway.get() >= 1);
    leader.set(leading.peer());
    await().until(() -> leading.received.size() == 1);
    leading.commitEntry(0, 7);

    assertThat(revisions(reply)).containsExactly(7L);
    assertThat(former.received).isEmpty();
  }

  @Test
  void aBatchWithNoLeaderOrNoConnectionIsSentOnceOneCanBeReached() {
    Member gone = new Member("n1", true);
    RaftPeer unreachable = gone.peer();
    gone.server.shutdownNow();
    Member leading = new Member("n2", true);
    CompletableFuture<BatchReply> reply = client(TIMEOUT).send(forward("a"));

    await().until(() -> leaderAsked.get() >= 2);
    leader.set(unreachable);
    awaitLeaderAsked(2);
    leader.set(leading.peer());
    await().until(() -> leading.received.size() == 1);
    leading.commitEntry(0, 3);

    assertThat(revisions(reply)).containsExactly(3L);
  }

  @Test
  void aBatchOnAStreamThatBreaksMayStillBeAppliedAndIsNotSentAgain() {
    Member leading = new Member("n1", true);
    Member next = new Member("n2", true);
    leader.set(leading.peer());
    CompletableFuture<BatchReply> reply = client(TIMEOUT).send(forward("a"));
    await().until(() -> leading.received.size() == 1);

    leader.set(next.peer());
    leading.server.shutdownNow();

    StorageException failed = failure(reply);
    assertThat(failed.reason()).isEqualTo(StorageException.Reason.UNAVAILABLE);
    assertThat(failed).hasMessageContaining("may still be applied");
    assertThat(next.received).as("not sent to the new leader").isEmpty();
    assertThat(leading.received).hasSize(1);
  }

  @Test
  void aBatchWithoutAnAnswerWithinTheTimeoutMayStillBeApplied() {
    Member leading = new Member("n1", true);
    leader.set(leading.peer());
    CompletableFuture<BatchReply> reply = client(TIMEOUT).send(forward("a"));
    await().until(() -> leading.received.size() == 1);

    ticker.addAndGet(TIMEOUT.toNanos() + 1);

    StorageException failed = failure(reply);
    assertThat(failed).hasMessageContaining("may still be applied").hasMessageContaining("no answer from the leader n1");
    assertThat(leading.received).hasSize(1);
  }

  @Test
  void withNoLeaderWithinTheTimeoutTheBatchFailsAsNotApplied() {
    CompletableFuture<BatchReply> reply = client(TIMEOUT).send(forward("a"));
    await().until(() -> leaderAsked.get() >= 2);

    ticker.addAndGet(TIMEOUT.toNanos());

    StorageException failed = failure(reply);
    assertThat(failed.reason()).isEqualTo(StorageException.Reason.UNAVAILABLE);
    assertThat(failed).hasMessageContaining("no leader is known").hasMessageContaining("it was not applied");
  }

  @Test
  void aFailureOnTheLeaderComesBackWithItsReason() {
    Member leading = new Member("n1", true);
    leader.set(leading.peer());
    CompletableFuture<BatchReply> reply = client(TIMEOUT).send(forward("a"));
    await().until(() -> leading.received.size() == 1);
    leading.entries.getFirst().completeExceptionally(
        new StorageException(StorageException.Reason.RESOURCE_EXHAUSTED, "the log is full"));

    StorageException failed = failure(reply);
    assertThat(failed.reason()).isEqualTo(StorageException.Reason.RESOURCE_EXHAUSTED);
    assertThat(failed).hasMessage("the log is full");
  }
}
