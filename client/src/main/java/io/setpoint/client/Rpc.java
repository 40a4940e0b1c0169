package io.setpoint.client;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;

/** The call plumbing shared by the blocking and async clients: one way to make each kind of call. */
final class Rpc {
  private final Channel channel;
  private final String address;
  private final Duration deadline;

  Rpc(Channel channel, String address, Duration deadline) {
    this.channel = channel;
    this.address = address;
    this.deadline = deadline;
  }

  Channel channel() {
    return channel;
  }

  String address() {
    return address;
  }

  /**
   * Starts a unary call under the client's deadline. The future completes with {@code result}
   * applied to the response, or with a {@link SetpointException}; cancelling it cancels the call.
   */
  <Q, R, T> CompletableFuture<T> unary(MethodDescriptor<Q, R> method, Q request, Function<R, T> result) {
    return unary(method, request, result, deadline);
  }

  /** {@link #unary(MethodDescriptor, Object, Function)} under a deadline of its own, for calls that take long by design. */
  <Q, R, T> CompletableFuture<T> unary(MethodDescriptor<Q, R> method, Q request, Function<R, T> result, Duration deadline) {
    ClientCall<Q, R> call =
        channel.newCall(method, CallOptions.DEFAULT.withDeadlineAfter(deadline.toNanos(), TimeUnit.NANOSECONDS));
    CallFuture<T> future = new CallFuture<>(call);
    ClientCalls.asyncUnaryCall(call, request, new StreamObserver<>() {
      @Override
      public void onNext(R response) {
        future.complete(result.apply(response));
      }

      @Override
      public void onError(Throwable t) {
        future.completeExceptionally(SetpointException.from(t, address));
      }

      @Override
      public void onCompleted() {}
    });
    return future;
  }

  /**
   * Starts a server-streaming call without a deadline and hands every message to {@code listener}
   * (one at a time). The future completes when the server ends the stream, exceptionally with a
   * {@link SetpointException} on error or with whatever the listener threw (which cancels the
   * call); cancelling the future cancels the call.
   */
  <Q, R> CompletableFuture<Void> serverStream(MethodDescriptor<Q, R> method, Q request, Consumer<? super R> listener) {
    ClientCall<Q, R> call = channel.newCall(method, CallOptions.DEFAULT);
    CallFuture<Void> done = new CallFuture<>(call);
    ClientCalls.asyncServerStreamingCall(call, request, new ClientResponseObserver<Q, R>() {
      private ClientCallStreamObserver<Q> stream;
      private int handledSinceRequest;

      @Override
      public void beforeStart(ClientCallStreamObserver<Q> stream) {
        // Ask for a window of messages ahead, not one round trip per message.
        this.stream = stream;
        stream.disableAutoRequestWithInitial(Watch.WINDOW);
      }

      @Override
      public void onNext(R message) {
        if (done.isDone()) {
          return;
        }
        try {
          listener.accept(message);
        } catch (RuntimeException | Error e) {
          done.completeExceptionally(e);
          call.cancel("the watch listener failed", e);
          return;
        }
        if (++handledSinceRequest == Watch.WINDOW / 2) {
          handledSinceRequest = 0;
          stream.request(Watch.WINDOW / 2);
        }
      }

      @Override
      public void onError(Throwable t) {
        done.completeExceptionally(SetpointException.from(t, address));
      }

      @Override
      public void onCompleted() {
        done.complete(null);
      }
    });
    return done;
  }

  /**
   * Waits for {@code future} in the calling thread. Failures are rethrown as a {@link
   * SetpointException} with the caller's stack trace, and what a {@link #serverStream} listener
   * threw as it is; an interrupt cancels the call, keeps the thread's interrupt flag and throws
   * one with code {@code CANCELLED}.
   */
  static <T> T await(CompletableFuture<T> future) {
    try {
      return future.get();
    } catch (InterruptedException e) {
      future.cancel(true);
      Thread.currentThread().interrupt();
      throw new SetpointException(
          Status.Code.CANCELLED, "interrupted while waiting for the server", List.of(), e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof SetpointException failure) {
        throw new SetpointException(failure);
      }
      if (e.getCause() instanceof RuntimeException listenerFailure) {
        throw listenerFailure; // what a stream's listener threw, which ended the call
      }
      throw new IllegalStateException("call failed unexpectedly", e.getCause());
    } catch (CancellationException e) {
      throw new SetpointException(Status.Code.CANCELLED, "the call was cancelled", List.of(), e);
    }
  }

  /** A future that cancels its call when cancelled. */
  private static final class CallFuture<T> extends CompletableFuture<T> {
    private final ClientCall<?, ?> call;

    CallFuture(ClientCall<?, ?> call) {
      this.call = call;
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
      boolean cancelled = super.cancel(mayInterruptIfRunning);
      if (cancelled) {
        call.cancel("cancelled by the client", null);
      }
      return cancelled;
    }

    @Override
    public <U> CompletableFuture<U> newIncompleteFuture() {
      // Dependent stages are plain futures: only this one owns the call.
      return new CompletableFuture<>();
    }
  }
}
