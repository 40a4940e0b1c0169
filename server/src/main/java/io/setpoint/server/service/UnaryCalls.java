package io.setpoint.server.service;

import io.grpc.stub.StreamObserver;
import java.util.function.Supplier;

/** Answers a unary gRPC call: the result of some work, or its failure mapped by {@link Errors}. */
public final class UnaryCalls {
  private UnaryCalls() {}

  /** Runs {@code work} and answers {@code out} with its result or its failure's status. */
  public static <R> void answer(Supplier<R> work, StreamObserver<R> out) {
    R response;
    try {
      response = work.get();
    } catch (RuntimeException e) {
      out.onError(Errors.toStatus(e));
      return;
    }
    out.onNext(response);
    out.onCompleted();
  }
}
