package io.setpoint.storage.raft;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * Linearizable reads from local state, with concurrent readers sharing one Raft round: a reader
 * waits for a barrier (a ReadIndex read through Ratis: this member has applied everything the
 * leader had committed when the barrier reached it) that was sent after the reader arrived, then
 * reads locally. Readers arriving while a barrier is in flight join the next one, which is sent when
 * it returns, so there is at most one barrier in flight and each serves everyone who queued.
 */
final class ReadBarrier {
  private final Supplier<CompletableFuture<Void>> sendBarrier;
  private final ReentrantLock lock = new ReentrantLock();
  /** The barrier the next readers join; not sent yet. */
  private CompletableFuture<Void> next;
  private boolean inFlight;

  ReadBarrier(Supplier<CompletableFuture<Void>> sendBarrier) {
    this.sendBarrier = sendBarrier;
  }

  /** Completes once a barrier sent after this call has passed. */
  CompletableFuture<Void> await() {
    CompletableFuture<Void> mine;
    boolean send;
    lock.lock();
    try {
      if (next == null) {
        next = new CompletableFuture<>();
      }
      mine = next;
      send = !inFlight;
      if (send) {
        inFlight = true;
        next = null;
      }
    } finally {
      lock.unlock();
    }
    if (send) {
      send(mine);
    }
    return mine;
  }

  private void send(CompletableFuture<Void> barrier) {
    CompletableFuture<Void> sent;
    try {
      sent = sendBarrier.get();
    } catch (RuntimeException e) {
      sent = CompletableFuture.failedFuture(e);
    }
    sent.whenComplete(
        (ok, error) -> {
          CompletableFuture<Void> following;
          lock.lock();
          try {
            following = next;
            next = null;
            inFlight = following != null;
          } finally {
            lock.unlock();
          }
          if (following != null) {
            send(following);
          }
          if (error != null) {
            barrier.completeExceptionally(error);
          } else {
            barrier.complete(null);
          }
        });
  }
}
