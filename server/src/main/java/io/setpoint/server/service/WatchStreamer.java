package io.setpoint.server.service;

import io.grpc.Status;
import io.setpoint.api.v1.WatchEvent;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Pumps watches into {@link WatchSink}s (gRPC streams, server-sent events), one virtual thread
 * per watch. It respects the sink's flow control (waits while the consumer is not ready instead
 * of buffering without bound), and ends when the consumer goes away or the watch is closed.
 */
public final class WatchStreamer {
  private static final Logger log = LoggerFactory.getLogger(WatchStreamer.class);
  private static final Duration CHECK_INTERVAL = Duration.ofMillis(250);

  private final Thread.Builder threads = Thread.ofVirtual().name("setpoint-watch-", 0);

  /** Streams {@code watch} into {@code sink} until either side ends it. */
  public void stream(FilteredWatch watch, WatchSink sink) {
    sink.onCancel(watch::close);
    threads.start(() -> pump(watch, sink));
  }

  private static void pump(FilteredWatch watch, WatchSink sink) {
    try (watch) {
      while (!sink.isCancelled()) {
        WatchEvent event = watch.poll(CHECK_INTERVAL);
        if (event == null) {
          continue;
        }
        while (!sink.isReady()) {
          if (sink.isCancelled()) {
            return;
          }
          sink.awaitReady(CHECK_INTERVAL);
        }
        sink.send(event);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      endQuietly(sink, Status.UNAVAILABLE.withDescription("the server is shutting down").asRuntimeException());
    } catch (RuntimeException e) {
      if (!sink.isCancelled()) {
        endQuietly(sink, Errors.toStatus(e));
      }
    }
  }

  private static void endQuietly(WatchSink sink, io.grpc.StatusRuntimeException status) {
    try {
      sink.fail(status);
    } catch (RuntimeException e) {
      log.debug("watch stream already ended", e);
    }
  }
}
