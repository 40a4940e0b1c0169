package io.setpoint.storage.raft;

import io.setpoint.storage.StorageException;
import io.setpoint.storage.StorageException.Reason;
import io.setpoint.storage.raft.v1.Batch;
import io.setpoint.storage.raft.v1.BatchReply;
import io.setpoint.storage.raft.v1.Op;
import io.setpoint.storage.raft.v1.Outcome;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;

/**
 * Group commit above Raft: concurrent writers' operations travel together as one log entry (one
 * fsync, one replication round), and each writer gets its own outcome back.
 *
 * <p>Writers only enqueue. Whoever finds a free slot (fewer than {@code maxInFlight} entries
 * submitted and unanswered) drains the queue into a batch and submits it; an answered batch frees
 * its slot and drains whatever queued meanwhile. So a lone writer pays one Raft round, and under
 * load each round carries everything that arrived during the previous one. Its writers then get
 * their outcomes once the batch is settled (for the Raft backend: applied by this member), which
 * is one wait per batch rather than per writer; one deadline check serves all batches in flight.
 *
 * <p>The queue is bounded by bytes: a write that would take it past its budget is refused at once
 * with {@code RESOURCE_EXHAUSTED} (nothing is written), so writers faster than the log cannot fill
 * the heap. An empty queue takes any one write.
 */
final class WriteBatcher implements AutoCloseable {
  /** A queued write; {@code deadline} ({@link System#nanoTime}) is when its writer stops waiting. */
  private record Pending(Op op, CompletableFuture<Outcome> outcome, long deadline) {}

  /** A sent batch whose writers have not been answered; it fails when {@code deadline} passes. */
  private record Unsettled(CompletableFuture<BatchReply> settled, long deadline) {}

  private final Function<Batch, CompletableFuture<BatchReply>> submit;
  private final Function<BatchReply, CompletableFuture<BatchReply>> settle;
  private final int maxOps;
  private final int maxBytes;
  private final int maxInFlight;
  private final long timeoutNanos;
  private final long maxQueuedBytes;
  private final ScheduledExecutorService timer;
  private final Executor sender;

  private final ReentrantLock lock = new ReentrantLock();
  private final ArrayDeque<Pending> queue = new ArrayDeque<>();
  /** The serialized size of the operations in {@link #queue}. */
  private long queuedBytes;
  private int inFlight;
  private boolean closed;
  /** Sent batches not yet settled, for {@link #expire}. */
  private final List<Unsettled> unsettled = new ArrayList<>();
  /** Whether {@link #expire} is scheduled. */
  private boolean expiring;

  /**
   * @param submit sends one batch through Raft and completes with its reply (or exceptionally
   *     with a {@link StorageException})
   * @param settle what a batch's writers wait for after its reply, with its slot already free for
   *     the next batch: for a member that did not commit the entry itself, applying it. One wait
   *     per batch, not per writer
   * @param timeout how long a writer waits from submitting: then its outcome fails with a {@link
   *     TimeoutException}, though the write may still be committed
   * @param maxQueuedBytes the most serialized bytes of operations that may wait for a batch
   * @param timer where the writers' deadlines are checked
   * @param sender where a batch that queued behind an answered one is sent: {@code submit}'s
   *     answers may come on a thread that must not send (for the Raft backend, one of Ratis's)
   */
  WriteBatcher(
      Function<Batch, CompletableFuture<BatchReply>> submit,
      Function<BatchReply, CompletableFuture<BatchReply>> settle,
      int maxOps,
      int maxBytes,
      int maxInFlight,
      Duration timeout,
      long maxQueuedBytes,
      ScheduledExecutorService timer,
      Executor sender) {
    this.submit = submit;
    this.settle = settle;
    this.maxOps = maxOps;
    this.maxBytes = maxBytes;
    this.maxInFlight = maxInFlight;
    this.timeoutNanos = timeout.toNanos();
    this.maxQueuedBytes = maxQueuedBytes;
    this.timer = timer;
    this.sender = sender;
  }

  /** Queues {@code op} for the next batch; completes with its outcome once applied. */
  CompletableFuture<Outcome> submit(Op op) {
    return submitAll(List.of(op)).getFirst();
  }

  /**
   * Queues {@code ops} together, in order, so that they go into the same batch unless it fills up;
   * each completes with its own outcome once applied.
   *
   * @throws StorageException {@code RESOURCE_EXHAUSTED} when queuing them would exceed the queue's
   *     byte budget (none is queued); {@code UNAVAILABLE} once closed
   */
  List<CompletableFuture<Outcome>> submitAll(List<Op> ops) {
    List<CompletableFuture<Outcome>> outcomes = new ArrayList<>(ops.size());
    List<List<Pending>> ready;
    lock.lock();
    try {
      if (closed) {
        throw new StorageException(Reason.UNAVAILABLE, "the store is shut down");
      }
      long bytes = 0;
      for (Op op : ops) {
        bytes += op.getSerializedSize();
      }
      if (!queue.isEmpty() && queuedBytes + bytes > maxQueuedBytes) {
        throw new StorageException(Reason.RESOURCE_EXHAUSTED,
            "the server already holds " + queuedBytes + " bytes of writes waiting to be committed (at most "
                + maxQueuedBytes + "); nothing was written: retry later or write less at once");
      }
      queuedBytes += bytes;
      // Taken under the lock, so deadlines rise in queue order: a batch's first is its earliest.
      long deadline = System.nanoTime() + timeoutNanos;
      for (Op op : ops) {
        Pending pending = new Pending(op, new CompletableFuture<>(), deadline);
        queue.add(pending);
        outcomes.add(pending.outcome());
      }
      ready = drainLocked();
    } finally {
      lock.unlock();
    }
    ready.forEach(this::send);
    return outcomes;
  }

  /** Takes as many batches as there are free slots; the caller sends them outside the lock. */
  private List<List<Pending>> drainLocked() {
    List<List<Pending>> ready = List.of();
    while (inFlight < maxInFlight && !queue.isEmpty()) {
      List<Pending> batch = new ArrayList<>(Math.min(queue.size(), maxOps));
      long bytes = 0;
      while (!queue.isEmpty() && batch.size() < maxOps) {
        int size = queue.peek().op().getSerializedSize();
        if (!batch.isEmpty() && bytes + size > maxBytes) {
          break;
        }
        bytes += size;
        queuedBytes -= size;
        batch.add(queue.poll());
      }
      if (ready.isEmpty()) {
        ready = new ArrayList<>(2);
      }
      ready.add(batch);
      inFlight++;
    }
    return ready;
  }

  private void send(List<Pending> batch) {
    Batch.Builder message = Batch.newBuilder();
    for (Pending p : batch) {
      message.addOps(p.op());
    }
    CompletableFuture<BatchReply> reply;
    try {
      reply = submit.apply(message.build());
    } catch (RuntimeException e) {
      reply = CompletableFuture.failedFuture(e);
    }
    // The slot frees when Raft answers, so the next batch is on its way while these writers wait
    // to be settled and woken up.
    CompletableFuture<BatchReply> settled =
        reply.handle((answer, error) -> {
              release();
              return error == null ? settle.apply(answer) : CompletableFuture.<BatchReply>failedFuture(error);
            })
            .thenCompose(answer -> answer);
    // A batch fails at its earliest writer's deadline (see expire). One that times out keeps its
    // slot until Raft answers, so a stuck log does not gain batches in flight.
    Unsettled waiting = new Unsettled(settled, batch.getFirst().deadline());
    watch(waiting);
    settled.whenComplete((answer, error) -> {
      forget(waiting);
      complete(batch, answer, error);
    });
  }

  private void watch(Unsettled waiting) {
    boolean schedule;
    lock.lock();
    try {
      unsettled.add(waiting);
      schedule = !expiring;
      expiring = true;
    } finally {
      lock.unlock();
    }
    if (schedule) {
      scheduleExpiry(waiting.deadline());
    }
  }

  private void forget(Unsettled settled) {
    lock.lock();
    try {
      unsettled.remove(settled);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Fails the batches whose deadline has passed, then waits for the earliest deadline left. One
   * check per deadline rather than a timer per batch: scheduling and cancelling a timer for each
   * batch woke the timer's thread twice per write when each write was a batch of its own.
   */
  private void expire() {
    List<Unsettled> late = new ArrayList<>();
    Unsettled earliest = null;
    lock.lock();
    try {
      long now = System.nanoTime();
      for (Iterator<Unsettled> it = unsettled.iterator(); it.hasNext(); ) {
        Unsettled waiting = it.next();
        if (waiting.deadline() - now <= 0) {
          late.add(waiting);
          it.remove();
        } else if (earliest == null || waiting.deadline() - earliest.deadline() < 0) {
          earliest = waiting;
        }
      }
      expiring = earliest != null;
    } finally {
      lock.unlock();
    }
    if (earliest != null) {
      scheduleExpiry(earliest.deadline());
    }
    late.forEach(waiting -> waiting.settled().completeExceptionally(new TimeoutException()));
  }

  private void scheduleExpiry(long deadline) {
    try {
      timer.schedule(this::expire, Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException stopped) {
      // The store is closing: its Raft server fails what is still in flight as it stops.
    }
  }

  /** Whether a batch is submitted and not yet answered. */
  boolean sending() {
    lock.lock();
    try {
      return inFlight > 0;
    } finally {
      lock.unlock();
    }
  }

  private void release() {
    List<List<Pending>> ready;
    lock.lock();
    try {
      inFlight--;
      ready = closed ? List.of() : drainLocked();
    } finally {
      lock.unlock();
    }
    if (!ready.isEmpty()) {
      try {
        sender.execute(() -> ready.forEach(this::send));
      } catch (RejectedExecutionException stopped) {
        StorageException failure = new StorageException(Reason.UNAVAILABLE, "the store is shut down");
        ready.forEach(batch -> batch.forEach(p -> p.outcome().completeExceptionally(failure)));
      }
    }
  }

  private static void complete(List<Pending> batch, BatchReply reply, Throwable error) {
    for (int i = 0; i < batch.size(); i++) {
      CompletableFuture<Outcome> outcome = batch.get(i).outcome();
      if (error != null) {
        outcome.completeExceptionally(error instanceof CompletionException c && c.getCause() != null ? c.getCause() : error);
      } else if (i < reply.getOutcomesCount()) {
        outcome.complete(reply.getOutcomes(i));
      } else {
        outcome.completeExceptionally(
            new IllegalStateException("the log entry of this write was not applied as a batch"));
      }
    }
  }

  /** Fails every queued write; writes already submitted still complete. */
  @Override
  public void close() {
    lock.lock();
    try {
      closed = true;
    } finally {
      lock.unlock();
    }
    failQueued(new StorageException(Reason.UNAVAILABLE, "the store is shut down"));
  }

  /**
   * Fails every write queued now with {@code failure} (the log cannot take them); batches in flight
   * still complete as Raft answers them.
   */
  void failQueued(StorageException failure) {
    List<Pending> dropped;
    lock.lock();
    try {
      dropped = new ArrayList<>(queue);
      queue.clear();
      queuedBytes = 0;
    } finally {
      lock.unlock();
    }
    dropped.forEach(p -> p.outcome().completeExceptionally(failure));
  }
}
