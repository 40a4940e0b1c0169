package io.setpoint.server;

import io.grpc.StatusRuntimeException;
import io.grpc.stub.ServerCallStreamObserver;
import io.setpoint.api.v1.WatchEvent;
import java.time.Duration;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/** A gRPC server stream as a {@link WatchSink}, with the stream's own flow control. */
final class GrpcWatchSink implements WatchSink {
  private final ServerCallStreamObserver<WatchEvent> out;
  private final Semaphore ready = new Semaphore(0);

  /** Must be created on the call's thread, before the call handler returns. */
  GrpcWatchSink(ServerCallStreamObserver<WatchEvent> out) {
    this.out = out;
    out.setOnReadyHandler(ready::release);
  }

  @Override
  public void onCancel(Runnable action) {
    out.setOnCancelHandler(action);
  }

  @Override
  public boolean isCancelled() {
    return out.isCancelled();
  }

  @Override
  public boolean isReady() {
    return out.isReady();
  }

  @Override
  public void awaitReady(Duration timeout) throws InterruptedException {
    ready.tryAcquire(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  @Override
  public void send(WatchEvent event) {
    out.onNext(event);
  }

  @Override
  public void fail(StatusRuntimeException error) {
    out.onError(error);
  }
}
