package io.setpoint.server;

import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.setpoint.api.v1.ResourceServiceGrpc;
import io.setpoint.api.v1.WatchEvent;
import io.setpoint.api.v1.WatchListRequest;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** One gRPC watch, its events queued as they come and its ending status kept. */
final class WatchProbe implements StreamObserver<WatchEvent> {
  private final BlockingQueue<WatchEvent> events = new LinkedBlockingQueue<>();
  private final CompletableFuture<Status> ended = new CompletableFuture<>();

  static WatchProbe open(ResourceServiceGrpc.ResourceServiceStub stub, WatchListRequest request) {
    WatchProbe probe = new WatchProbe();
    stub.watchList(request, probe);
    return probe;
  }

  /** The next event, failing if none comes within 10 seconds. */
  WatchEvent next() throws InterruptedException {
    WatchEvent event = events.poll(10, TimeUnit.SECONDS);
    if (event == null) {
      throw new AssertionError("no watch event within 10 seconds" + (ended.isDone() ? "; ended " + ended.join() : ""));
    }
    return event;
  }

  /** The status the stream ended with, waiting at most {@code timeout}. */
  Status end(Duration timeout) throws Exception {
    return ended.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  boolean isEnded() {
    return ended.isDone();
  }

  int queued() {
    return events.size();
  }

  @Override
  public void onNext(WatchEvent event) {
    events.add(event);
  }

  @Override
  public void onError(Throwable t) {
    ended.complete(Status.fromThrowable(t));
  }

  @Override
  public void onCompleted() {
    ended.complete(Status.OK);
  }
}
