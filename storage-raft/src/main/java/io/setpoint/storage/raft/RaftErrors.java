package io.setpoint.storage.raft;

import io.setpoint.storage.StorageException;
import io.setpoint.storage.StorageException.Reason;
import io.setpoint.storage.raft.v1.Outcome;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import org.apache.ratis.protocol.RaftClientReply;

/**
 * How failures reach the backend's callers: Ratis's exceptions and failed replies, and the
 * refusals the state machine answered, each as the {@link StorageException} a caller sees.
 */
final class RaftErrors {
  private RaftErrors() {}

  /**
   * What {@code what} failed with: the {@link StorageException} {@code cause} carries, else {@code
   * UNAVAILABLE}; a timeout may still take effect.
   */
  static StorageException failure(String what, Throwable cause) {
    while ((cause instanceof CompletionException || cause instanceof ExecutionException) && cause.getCause() != null) {
      cause = cause.getCause();
    }
    if (cause instanceof StorageException e) {
      return e;
    }
    if (cause instanceof TimeoutException) {
      return new StorageException(
          Reason.UNAVAILABLE, what + " timed out (no leader, or no quorum?); it may still take effect");
    }
    return new StorageException(Reason.UNAVAILABLE, what + " failed: " + cause);
  }

  /** A failure after which the leader may still have committed the batch: never sent again. */
  static StorageException mayStillBeApplied(String why) {
    return new StorageException(Reason.UNAVAILABLE, "write failed in Raft, and it may still be applied: " + why);
  }

  /** The failure a dependent stage of a {@link java.util.concurrent.CompletableFuture} sees, without its wrapper. */
  static Throwable unwrap(Throwable failure) {
    return failure instanceof CompletionException && failure.getCause() != null
        ? failure.getCause()
        : failure;
  }

  /** @throws StorageException {@code UNAVAILABLE} when Raft answered {@code what} with a failure */
  static void checkReply(RaftClientReply reply, String what) {
    if (!reply.isSuccess()) {
      throw new StorageException(
          Reason.UNAVAILABLE, what + " failed in Raft: " + reply.getException());
    }
  }

  /** The refusal {@code outcome} carries, as the {@link StorageException} of its reason. */
  static RuntimeException refused(Outcome outcome) {
    String reason = outcome.getFailure().getReason();
    String message = outcome.getFailure().getMessage();
    for (Reason r : Reason.values()) {
      if (r.name().equals(reason)) {
        return new StorageException(r, message);
      }
    }
    return new IllegalStateException("applying failed (" + reason + "): " + message);
  }

  /** The reason named {@code name} in a forwarded batch's failure; {@code UNAVAILABLE} when unknown here. */
  static Reason reason(String name) {
    try {
      return Reason.valueOf(name);
    } catch (IllegalArgumentException unknown) {
      return Reason.UNAVAILABLE;
    }
  }

  static IllegalStateException unexpected(Outcome outcome) {
    return new IllegalStateException("unexpected outcome " + outcome.getResultCase());
  }
}
