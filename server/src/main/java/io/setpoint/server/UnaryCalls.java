package io.setpoint.server;

import io.grpc.stub.StreamObserver;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/** Answers a unary gRPC call: the result of some work, or its failure mapped by {@link Errors}. */
final class UnaryCalls {
  private UnaryCalls() {}

  /** Runs {@code work} and answers {@code out} with its result or its failure's status. */
  public static <R> void answer(Supplier<R> work, StreamObserver<R> out) {
    answerLater(() -> CompletableFuture.completedFuture(work.get()), out);
  }

  /**
   * Starts {@code work} and answers {@code out} once its future completes, from whichever thread
   * completes it: the calling thread is not held meanwhile.
   */
  public static <R> void answerLater(Supplier<CompletableFuture<R>> work, StreamObserver<R> out) {
    CompletableFuture<R> pending;
    try {
      pending = work.get();
    } catch (RuntimeException e) {
      out.onError(Errors.toStatus(e));
      return;
    }
    pending.whenComplete((response, failure) -> {
      if (failure != null) {
        out.onError(Errors.toStatus(Errors.unwrapped(failure)));
        return;
      }
      try {
        out.onNext(response);
        out.onCompleted();
      } catch (RuntimeException e) {
        // Nothing above this callback would see the exception: end the call with it instead.
        out.onError(Errors.toStatus(e));
      }
    });
  }
}
