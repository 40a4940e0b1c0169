package io.setpoint.storage.raft;

import io.setpoint.storage.StorageException.Reason;
import io.setpoint.storage.StorageException;
import io.setpoint.storage.raft.v1.Batch;
import io.setpoint.storage.raft.v1.BatchReply;
import io.setpoint.storage.raft.v1.Forward;
import io.setpoint.storage.raft.v1.Op;
import io.setpoint.storage.raft.v1.Outcome;
import java.io.IOException;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.retry.RetryPolicy;
import org.apache.ratis.server.RaftServer;

/**
 * The way of this member's writes and strong reads through Raft. Writes are gathered into batches
 * ({@link WriteBatcher}); a batch is committed as this member's own log entry while it leads, else
 * forwarded to the leader ({@link ForwardClient}), and a write completes once this member has
 * applied it too. A strong read first waits for a read barrier ({@link ReadBarrier}).
 */
final class SubmitPipeline implements AutoCloseable {
  private static final Duration RETRY_PAUSE_MIN = Duration.ofMillis(10);
  private static final Duration RETRY_PAUSE_MAX = Duration.ofMillis(250);

  /** This member's node name. */
  private final String self;
  private final ReplicatedStore store;
  private final MemberHealth health;
  /** Whether this member leads and has applied every entry of earlier terms. */
  private final BooleanSupplier leads;
  /** Throws when the backend is closed. */
  private final Runnable checkOpen;
  /** Forwards batches of writes to the leader; never repeats one that may have been committed. */
  private final ForwardClient forwards;
  private final LocalSubmitter local;
  /**
   * Where entries or read barriers go instead, when {@link RaftCustomization#LOCAL_SUBMITTER} or
   * {@link RaftCustomization#FORWARD_STREAM} is off; null while both are on.
   */
  private final ClientSubmitter viaClient;
  /** Whether this member's own entries and read barriers go through {@link #viaClient}. */
  private final boolean submitViaClient;
  /** Whether a follower's batches go through {@link #viaClient} rather than the forward stream. */
  private final boolean forwardViaClient;
  /**
   * Where entries and barriers are sent from once a Raft answer makes room for them, and where
   * forwards and barriers are answered: never on a Ratis thread, because handing an entry to this
   * member's own server appends it on the caller's thread, which may wait for room in the log's
   * queue (which a Ratis thread, say the one applying entries, must not do).
   */
  private final ExecutorService replies;
  private final WriteBatcher writes;
  private final ReadBarrier reads;
  private final Duration timeout;

  /**
   * @param leader the leader this member knows of, with its address; null while none is
   * @param timer runs the write batcher's and the forward client's deadline checks
   */
  SubmitPipeline(
      RaftConfig config,
      ReplicatedStore store,
      RaftServer server,
      Membership membership,
      RetryPolicy retryPolicy,
      ForwardClient.Transport toLeader,
      ExecutorService replies,
      MemberHealth health,
      ScheduledExecutorService timer,
      Set<RaftCustomization> off,
      BooleanSupplier leads,
      Supplier<RaftPeer> leader,
      Runnable checkOpen) {
    this.submitViaClient = off.contains(RaftCustomization.LOCAL_SUBMITTER);
    this.forwardViaClient = off.contains(RaftCustomization.FORWARD_STREAM);
    this.self = config.nodeName();
    this.store = store;
    this.replies = replies;
    this.health = health;
    this.leads = leads;
    this.checkOpen = checkOpen;
    RaftPeerId peerId = RatisSettings.peerId(config.nodeName());
    this.local = new LocalSubmitter(server, peerId);
    this.viaClient = submitViaClient || forwardViaClient
        ? new ClientSubmitter(membership.newClient(null, retryPolicy, null), peerId)
        : null;
    this.timeout = config.tuning().requestTimeout();
    RaftConfig.Tuning t = config.tuning();
    this.writes = new WriteBatcher(this::replicate, this::appliedHere, t.maxBatchOps(), t.maxBatchBytes(), t.maxBatchesInFlight(), timeout,
        RatisSettings.heapShare(t), timer, replies);
    this.reads = new ReadBarrier(this::readIndex);
    // A batch on its way to a member that lost the lead gets that member's answer in well under an
    // election timeout, or is caught behind a partition.
    this.forwards = new ForwardClient(config.nodeName(), leader, this::ownEntry, toLeader, timeout,
        t.electionTimeoutMin(), System::nanoTime, timer, replies);
  }

  /** Where the leader queues the batches other members forward to it ({@link ForwardedWrites}). */
  WriteBatcher batcher() {
    return writes;
  }

  /** Fails the writes queued and not yet sent, with {@code refusal}. */
  void failQueued(StorageException refusal) {
    writes.failQueued(refusal);
  }

  /** {@link #submitAsync}, waited for. */
  Outcome submit(Op op) {
    try {
      return submitAsync(op).get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StorageException(Reason.UNAVAILABLE, "write interrupted");
    } catch (ExecutionException e) {
      throw RaftErrors.failure("write", e.getCause());
    }
  }

  /**
   * Commits {@code op} through the batcher and completes with its outcome once this member has
   * applied it too, so a caller reads its own writes on the member it wrote through; or, within
   * the request timeout, with a {@link StorageException}.
   */
  CompletableFuture<Outcome> submitAsync(Op op) {
    CompletableFuture<Outcome> committed;
    try {
      checkOpen.run();
      checkWritable();
      committed = writes.submit(op);
    } catch (StorageException e) {
      return CompletableFuture.failedFuture(e);
    }
    // The batcher bounds the wait by the request timeout.
    return committed.exceptionallyCompose(e -> CompletableFuture.failedFuture(inFlightFailure(e)));
  }

  /**
   * Why a write failed: when the log failed meanwhile, that (the write was in flight, so it may
   * still be committed by other members), rather than how Raft happened to answer it.
   */
  private StorageException inFlightFailure(Throwable error) {
    StorageException failure = RaftErrors.failure("write", error);
    StorageException refusal = health.refusal();
    if (refusal == null || failure.getMessage().equals(refusal.getMessage())) {
      return failure;
    }
    return new StorageException(Reason.UNAVAILABLE, refusal.getMessage() + " (this write was in flight: it may still take effect)");
  }

  /** Fails fast while the log cannot take writes, with the reason. */
  private void checkWritable() {
    throwIfRefused(health.refusal());
  }

  private static void throwIfRefused(StorageException refusal) {
    if (refusal != null) {
      throw refusal;
    }
  }

  /**
   * Completes with {@code reply} once this member has applied every write in it: at once on the
   * member that committed the entry, later on one that forwarded it. One wait per batch; the
   * writers are woken off the applier thread.
   */
  private CompletableFuture<BatchReply> appliedHere(BatchReply reply) {
    long last = 0;
    for (Outcome outcome : reply.getOutcomesList()) {
      last = Math.max(last, outcome.getRevision());
    }
    CompletableFuture<Void> reached = store.applied().reached(last);
    if (reached.isDone()) {
      return CompletableFuture.completedFuture(reply);
    }
    // On a member that forwarded the writes: it learns that they are committed from the leader's
    // next append, which the leader sends as it answers when no newer entry would bring the commit
    // index (ForwardedWrites, CommitPropagation).
    return reached.thenApplyAsync(done -> reply, replies);
  }

  /**
   * Waits until this member has applied everything committed before now. A round fails at once
   * while no leader is known (the member just started, an election runs), so like a write it is
   * tried again until the request timeout.
   */
  void catchUp() {
    // Raft is down on this member until its log takes writes again: no leader to catch up with.
    throwIfRefused(health.refusal("cannot read consistently now"));
    long deadline = System.nanoTime() + timeout.toNanos();
    long pauseNanos = RETRY_PAUSE_MIN.toNanos();
    for (;;) {
      try {
        await(reads.await(), deadline, "strong read");
        return;
      } catch (StorageException e) {
        if (deadline - System.nanoTime() <= pauseNanos) {
          throw e;
        }
      }
      try {
        TimeUnit.NANOSECONDS.sleep(pauseNanos);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new StorageException(Reason.UNAVAILABLE, "strong read interrupted");
      }
      pauseNanos = Math.min(pauseNanos * 2, RETRY_PAUSE_MAX.toNanos());
    }
  }

  /**
   * Commits {@code batch}: as this member's own log entry while it leads, else by forwarding it to
   * the leader.
   */
  private CompletableFuture<BatchReply> replicate(Batch batch) {
    StorageException refusal = health.refusal();
    if (refusal != null) {
      return CompletableFuture.failedFuture(refusal);
    }
    CompletableFuture<BatchReply> own = ownEntryIfLeading(batch);
    if (own != null) {
      return own;
    }
    if (forwardViaClient) {
      return offRatis(viaClient.write(StoreStateMachine.message(batch))).thenApply(SubmitPipeline::batchReply);
    }
    return forwards.send(Forward.newBuilder().setFrom(self).setBatch(batch).build());
  }

  /** {@code batch} as this member's own log entry; {@code null} when it does not lead. */
  private CompletableFuture<BatchReply> ownEntryIfLeading(Batch batch) {
    CompletableFuture<RaftClientReply> submitted;
    if (submitViaClient) {
      submitted = leads.getAsBoolean() ? viaClient.write(StoreStateMachine.message(batch)) : null;
    } else {
      submitted = local.writeIfLeading(StoreStateMachine.message(batch));
    }
    // Answered off the Ratis thread that completes it (the one applying entries, on a leader): a
    // writer woken there may block, e.g. on the linearizable read after a lost race, which waits
    // for that very thread to apply the barrier, so every write stalled until its timeout.
    return submitted == null ? null : offRatis(submitted).thenApply(SubmitPipeline::batchReply);
  }

  /**
   * A batch this member's forward client found it leads itself: an entry of its own, or turned
   * away when it no longer leads (or does not lead yet).
   */
  private CompletableFuture<BatchReply> ownEntry(Batch batch) {
    CompletableFuture<BatchReply> own = ownEntryIfLeading(batch);
    return own != null
        ? own
        : CompletableFuture.failedFuture(new ForwardedWrites.TurnedAway("this member no longer leads"));
  }

  private static BatchReply batchReply(RaftClientReply reply) {
    // A leader's own entry is not retried when leadership moves, nor is a forwarded batch, and a
    // client's may have been committed before its retries ran out: the outcome is unknown.
    if (!reply.isSuccess()) {
      throw RaftErrors.mayStillBeApplied(String.valueOf(reply.getException()));
    }
    try {
      return BatchReply.parseFrom(reply.getMessage().getContent().asReadOnlyByteBuffer());
    } catch (IOException e) {
      throw new IllegalStateException("unreadable reply from the leader", e);
    }
  }

  private CompletableFuture<Void> readIndex() {
    CompletableFuture<RaftClientReply> barrier =
        submitViaClient ? viaClient.readBarrier() : local.readBarrier();
    return offRatis(barrier).thenAccept(reply -> RaftErrors.checkReply(reply, "strong read"));
  }

  /** {@code sent}, answered on {@link #replies} rather than on the Ratis thread that completes it. */
  private CompletableFuture<RaftClientReply> offRatis(CompletableFuture<RaftClientReply> sent) {
    return sent.whenCompleteAsync((reply, error) -> {}, replies);
  }

  private static <T> T await(Future<T> future, long deadline, String what) {
    try {
      return future.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      throw RaftErrors.failure(what, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StorageException(Reason.UNAVAILABLE, what + " interrupted");
    } catch (ExecutionException e) {
      throw RaftErrors.failure(what, e.getCause());
    }
  }

  /** Fails the writes still queued or in flight, and closes the connections to the leader. */
  @Override
  public void close() {
    writes.close();
    forwards.close();
    if (viaClient != null) {
      viaClient.close();
    }
  }
}
