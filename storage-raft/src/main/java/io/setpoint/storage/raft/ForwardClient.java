package io.setpoint.storage.raft;

import io.setpoint.storage.StorageException;
import io.setpoint.storage.StorageException.Reason;
import io.setpoint.storage.raft.v1.Batch;
import io.setpoint.storage.raft.v1.BatchReply;
import io.setpoint.storage.raft.v1.Forward;
import io.setpoint.storage.raft.v1.ForwardAnswer;
import io.setpoint.storage.raft.v1.ForwardCall;
import java.net.ConnectException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.thirdparty.io.netty.handler.ssl.SslContext;

/**
 * A member's end of the forward stream ({@link ForwardService}): sends this member's batches of
 * writes to the leader it knows of on one long-lived stream, and completes each with the leader's
 * answer.
 *
 * <p>A batch is sent again only when it certainly was not taken: the member asked turned it away
 * (it does not lead, or not yet), no connection to it could be made, or no leader is known yet;
 * then it goes to the leader this member knows of after a short pause, until the request timeout.
 * Any other failure (the stream broke, no answer within the timeout) may come after the leader
 * committed the batch, and repeating it could apply the writes twice, so it is reported as a write
 * that may still be applied.
 *
 * <p>So is a batch still unanswered a grace period after another member became the leader. The
 * member it went to may be cut off, and its answer may depend on this member: a leader that lost
 * its majority passes the writes it had queued on to the new leader, whose only batch in flight may
 * be this very one. Waiting out the whole timeout then stalled every write on the new leader.
 */
final class ForwardClient implements AutoCloseable, ForwardLink.Client {
  private static final Duration PAUSE_MIN = Duration.ofMillis(10);
  private static final Duration PAUSE_MAX = Duration.ofMillis(250);

  /** How the leader is reached: the channel settings and this member's certificate. */
  record Transport(SslContext tls, int maxMessageBytes, int flowControlWindowBytes) {}

  private final String self;
  private final Supplier<RaftPeer> leader;
  private final Function<Batch, CompletableFuture<BatchReply>> ownEntry;
  private final Transport transport;
  private final long timeoutNanos;
  private final long graceNanos;
  private final LongSupplier nanoTime;
  private final ScheduledExecutorService timer;
  /** Where a batch is sent again from: it may go to this member's own server, which may block. */
  private final Executor resend;
  private final Map<Long, Sent> sent = new ConcurrentHashMap<>();
  private final AtomicLong ids = new AtomicLong();
  /** Batches waiting out a pause before they are sent again: failed on close. */
  private final Set<Sent> paused = ConcurrentHashMap.newKeySet();
  private final ScheduledFuture<?> expiry;
  /** Guarded by {@code this}, as is {@link #retired}. */
  private ForwardLink link;
  /** Links no batch goes to any more, closed for good a timeout after they were retired, or on close. */
  private final List<ForwardLink> retired = new ArrayList<>();
  private volatile boolean closed;

  /**
   * @param self this member's node name
   * @param leader the leader this member knows of, with its address; null while none is
   * @param ownEntry commits a batch as this member's own log entry when it is the leader itself;
   *     fails with {@link ForwardedWrites.TurnedAway} when it is not, or not ready yet
   * @param timeout how long a batch may wait for its answer, tries included
   * @param grace how long a batch may wait for its answer once another member leads
   * @param nanoTime the ticker deadlines are measured on ({@link System#nanoTime} but in tests)
   * @param timer runs pauses and expiries
   * @param resend where a batch is sent again from
   */
  ForwardClient(String self, Supplier<RaftPeer> leader, Function<Batch, CompletableFuture<BatchReply>> ownEntry,
      Transport transport, Duration timeout, Duration grace, LongSupplier nanoTime, ScheduledExecutorService timer,
      Executor resend) {
    this.self = self;
    this.leader = leader;
    this.ownEntry = ownEntry;
    this.transport = transport;
    this.timeoutNanos = timeout.toNanos();
    this.graceNanos = grace.toNanos();
    this.nanoTime = nanoTime;
    this.timer = timer;
    this.resend = resend;
    long every = Math.max(Math.min(timeout.toMillis(), grace.toMillis()) / 4, 10);
    this.expiry = timer.scheduleWithFixedDelay(this::expire, every, every, TimeUnit.MILLISECONDS);
  }

  /** Sends {@code forward} to the leader; completes with its outcomes, or fails with a {@link StorageException}. */
  CompletableFuture<BatchReply> send(Forward forward) {
    Sent batch = new Sent(forward, new CompletableFuture<>(), nanoTime.getAsLong() + timeoutNanos);
    attempt(batch, PAUSE_MIN.toNanos());
    return batch.reply();
  }

  private void attempt(Sent batch, long pauseNanos) {
    if (closed) {
      shutDown(batch);
      return;
    }
    RaftPeer to = leader.get();
    if (to == null) {
      later(batch, pauseNanos, "no leader is known");
      return;
    }
    if (to.getId().toString().equals(self)) {
      // Not queued in this member's batcher: its only slot waits for this very batch.
      ownEntry.apply(batch.forward().getBatch()).whenComplete((reply, failure) -> {
        if (failure == null) {
          batch.reply().complete(reply);
        } else if (RaftErrors.unwrap(failure) instanceof ForwardedWrites.TurnedAway away) {
          later(batch, pauseNanos, away.getMessage());
        } else {
          batch.reply().completeExceptionally(RaftErrors.unwrap(failure));
        }
      });
      return;
    }
    ForwardCall call = ForwardCall.newBuilder().setId(ids.incrementAndGet()).setForward(batch.forward()).build();
    ForwardLink on;
    do {
      synchronized (this) {
        if (closed) {
          shutDown(batch);
          return;
        }
        on = link(to);
      }
      // False when that link broke or was retired just now, with nothing sent on it.
    } while (!send(on, call, batch.on(on, pauseNanos)));
  }

  /** Sends {@code call} on {@code on}, awaiting its answer as {@code batch}; false when {@code on} no longer sends. */
  private boolean send(ForwardLink on, ForwardCall call, Sent batch) {
    return on.send(call, () -> sent.put(call.getId(), batch), e -> {
      if (sent.remove(call.getId(), batch)) {
        batch.reply().completeExceptionally(RaftErrors.mayStillBeApplied("could not send it to the leader: " + e));
      }
    });
  }

  /** Sends {@code batch} again after a pause, or fails it when the pause would pass its deadline. */
  private void later(Sent batch, long pauseNanos, String why) {
    if (nanoTime.getAsLong() + pauseNanos > batch.deadline()) {
      batch.reply().completeExceptionally(new StorageException(Reason.UNAVAILABLE,
          "no leader took the write within " + Duration.ofNanos(timeoutNanos) + " (last: " + why + "); it was not applied"));
      return;
    }
    long next = Math.min(pauseNanos * 2, PAUSE_MAX.toNanos());
    paused.add(batch);
    if (closed && paused.remove(batch)) {
      shutDown(batch);
      return;
    }
    try {
      timer.schedule(() -> {
        if (!paused.remove(batch)) {
          return;
        }
        try {
          resend.execute(() -> attempt(batch, next));
        } catch (RejectedExecutionException stopped) {
          shutDown(batch);
        }
      }, pauseNanos, TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException stopped) {
      if (paused.remove(batch)) {
        shutDown(batch);
      }
    }
  }

  private static void shutDown(Sent batch) {
    batch.reply().completeExceptionally(new StorageException(Reason.UNAVAILABLE, "the store is shut down"));
  }

  /** The link to {@code to}, made now when the current one goes elsewhere or broke. */
  private ForwardLink link(RaftPeer to) {
    if (link != null && !link.broken && link.peer.getId().equals(to.getId())
        && link.peer.getAddress().equals(to.getAddress())) {
      return link;
    }
    retireLink();
    link = new ForwardLink(to, transport, graceNanos, this);
    return link;
  }

  /**
   * Sends nothing more on the current link. The batches on it still get their answers, unless
   * the stream breaks; its connection is closed for good after a timeout, when they have had their
   * time.
   */
  private void retireLink() {
    ForwardLink old = link;
    if (old == null) {
      return;
    }
    link = null;
    old.retire();
    retired.add(old);
    try {
      timer.schedule(() -> {
        synchronized (this) {
          retired.remove(old);
        }
        old.channel.shutdownNow();
      }, timeoutNanos, TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException stopped) {
      old.channel.shutdownNow();
    }
  }

  @Override
  public void answered(ForwardLink from, ForwardAnswer answer) {
    Sent batch = sent.remove(answer.getId());
    if (batch == null) {
      return;
    }
    switch (answer.getResultCase()) {
      case REPLY -> batch.reply().complete(answer.getReply());
      case FAILURE -> batch.reply().completeExceptionally(
          new StorageException(RaftErrors.reason(answer.getFailure().getReason()), answer.getFailure().getMessage()));
      case TURNED_AWAY -> later(batch, batch.pauseNanos(), from.peer.getId() + ": " + answer.getTurnedAway());
      case RESULT_NOT_SET -> batch.reply().completeExceptionally(RaftErrors.mayStillBeApplied("an empty answer from " + from.peer.getId()));
    }
  }

  /** The stream on {@code from} ended: its batches still unanswered are sent again or failed. */
  @Override
  public void ended(ForwardLink from, Throwable cause) {
    boolean neverConnected = connectFailure(cause);
    sent.forEach((id, batch) -> {
      if (batch.link() == from && sent.remove(id, batch)) {
        if (neverConnected) {
          later(batch, batch.pauseNanos(), "cannot connect to " + from.peer.getAddress());
        } else {
          batch.reply().completeExceptionally(RaftErrors.mayStillBeApplied("the stream to the leader "
                  + from.peer.getId() + " ended: " + (cause == null ? "closed" : cause.getMessage())));
        }
      }
    });
  }

  /**
   * Fails the batches that had no answer within the timeout, or within the grace period since
   * another member leads. Their link may be dead without having noticed (nothing was sent back
   * since), so the next batch goes on a new one.
   */
  private void expire() {
    long now = nanoTime.getAsLong();
    RaftPeer leading = leader.get();
    sent.forEach((id, batch) -> {
      ForwardLink on = batch.link();
      String late = null;
      if (now - batch.deadline() > 0) {
        late = "no answer from the leader " + on.peer.getId() + " within " + Duration.ofNanos(timeoutNanos);
      } else if (on.outlived(leading, now)) {
        late = "no answer from " + on.peer.getId() + " within " + Duration.ofNanos(graceNanos) + " of "
            + leading.getId() + " leading";
      }
      if (late != null && sent.remove(id, batch)) {
        batch.reply().completeExceptionally(RaftErrors.mayStillBeApplied(late));
        synchronized (this) {
          if (link == on) {
            retireLink();
          }
        }
      }
    });
  }

  /** Fails the batches still unanswered (they may still be applied) and closes the connection. */
  @Override
  public void close() {
    List<ForwardLink> open = new ArrayList<>();
    synchronized (this) {
      closed = true;
      if (link != null) {
        open.add(link);
        link = null;
      }
      open.addAll(retired);
      retired.clear();
    }
    expiry.cancel(false);
    open.forEach(l -> l.channel.shutdownNow());
    paused.forEach(batch -> {
      if (paused.remove(batch)) {
        shutDown(batch);
      }
    });
    sent.forEach((id, batch) -> {
      if (sent.remove(id, batch)) {
        batch.reply().completeExceptionally(new StorageException(Reason.UNAVAILABLE,
            "the store is shut down; a write in flight may still be applied"));
      }
    });
  }

  private static boolean connectFailure(Throwable failure) {
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      if (cause instanceof ConnectException) {
        return true;
      }
    }
    return false;
  }

  /**
   * A batch waiting for its answer; {@code link} and {@code pauseNanos} are those of its latest
   * try. Equal only to itself, as one try of one batch, whatever it carries.
   */
  private record Sent(Forward forward, CompletableFuture<BatchReply> reply, long deadline, ForwardLink link, long pauseNanos) {
    Sent(Forward forward, CompletableFuture<BatchReply> reply, long deadline) {
      this(forward, reply, deadline, null, 0);
    }

    Sent on(ForwardLink link, long pauseNanos) {
      return new Sent(forward, reply, deadline, link, pauseNanos);
    }

    @Override
    public boolean equals(Object other) {
      return this == other;
    }

    @Override
    public int hashCode() {
      return System.identityHashCode(this);
    }
  }
}
