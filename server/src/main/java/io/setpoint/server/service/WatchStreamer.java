package io.setpoint.server.service;

import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.setpoint.api.v1.WatchEvent;
import java.time.Duration;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Pumps watches into gRPC streams, one virtual thread per stream. It respects the stream's flow
 * control (waits while the client is not ready instead of buffering without bound), and ends the
 * stream when the client cancels or the watch is closed.
 */
public final class WatchStreamer {
  private static final Logger log = LoggerFactory.getLogger(WatchStreamer.class);
  private static final Duration CHECK_INTERVAL = Duration.ofMillis(250);

  private final Thread.Builder threads = Thread.ofVirtual().name("setpoint-watch-", 0);

  /** Streams {@code watch} into {@code out} until either side ends it. */
  public void stream(FilteredWatch watch, ServerCallStreamObserver<WatchEvent> out) {
    Semaphore ready = new Semaphore(0);
    out.setOnReadyHandler(ready::release);
    out.setOnCancelHandler(watch::close);
    threads.start(() -> pump(watch, out, ready));
  }

  private static void pump(FilteredWatch watch, ServerCallStreamObserver<WatchEvent> out, Semaphore ready) {
    try (watch) {
      while (!out.isCancelled()) {
        WatchEvent event = watch.poll(CHECK_INTERVAL);
        if (event == null) {
          continue;
        }
        while (!out.isReady()) {
          if (out.isCancelled()) {
            return;
          }
          ready.tryAcquire(CHECK_INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
        }
        out.onNext(event);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      endQuietly(out, Status.UNAVAILABLE.withDescription("the server is shutting down"));
    } catch (RuntimeException e) {
      if (!out.isCancelled()) {
        endQuietly(out, io.grpc.Status.fromThrowable(Errors.toStatus(e)));
      }
    }
  }

  private static void endQuietly(ServerCallStreamObserver<WatchEvent> out, Status status) {
    try {
      out.onError(status.asRuntimeException());
    } catch (RuntimeException e) {
      log.debug("watch stream already ended", e);
    }
  }
}
