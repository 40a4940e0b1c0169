package io.setpoint.server;

import io.grpc.Status;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.WatchEvent;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Pumps watches into {@link WatchSink}s (gRPC streams, server-sent events), one virtual thread
 * per watch. It respects the sink's flow control (waits while the consumer is not ready instead
 * of buffering without bound), and ends when the consumer goes away or the watch is closed. A
 * consumer that reads nothing while the store closes its watch for falling a whole buffer behind
 * is told so at once ({@code UNAVAILABLE}), and the events buffered for it are let go: a watcher
 * that stops reading holds at most one watch buffer, and only until the buffer fills.
 *
 * <p>Meters: {@code setpoint_watches_open}, {@code setpoint_watch_events_total}, and {@code
 * setpoint_watch_lag_revisions}, how many revisions the store was ahead of each event sent (a
 * watcher that keeps up sends at 0 or near it; a slow one falls behind).
 */
final class WatchStreamer {
  private static final Logger log = LoggerFactory.getLogger(WatchStreamer.class);
  private static final Duration CHECK_INTERVAL = Duration.ofMillis(250);

  /** Lag buckets, in revisions: ten times apart, the first holding the caught-up (0 and 1). */
  private static final double[] LAG_BUCKETS = {1, 10, 100, 1_000, 10_000, 100_000, 1_000_000};

  private final Thread.Builder threads = Thread.ofVirtual().name("setpoint-watch-", 0);
  private final LongSupplier head;
  private final WriteTraces traces;
  private final AtomicInteger open = new AtomicInteger();
  private final Counter events;
  private final DistributionSummary lag;

  /** Streams watches of a store whose current revision {@code head} reads, metered in {@code meters}. */
  public WatchStreamer(MeterRegistry meters, LongSupplier head) {
    this(meters, head, null);
  }

  /** As above, stamping each event with the trace of its write from {@code traces} (null: not tracing). */
  public WatchStreamer(MeterRegistry meters, LongSupplier head, WriteTraces traces) {
    this.head = head;
    this.traces = traces;
    meters.gauge("setpoint.watches.open", open);
    this.events = Counter.builder("setpoint.watch.events").description("Watch events sent").register(meters);
    this.lag = DistributionSummary.builder("setpoint.watch.lag").baseUnit("revisions")
        .description("How far the store was ahead of each watch event sent")
        .serviceLevelObjectives(LAG_BUCKETS).register(meters);
  }

  /** Streams {@code watch} into {@code sink} until either side ends it. */
  public void stream(FilteredWatch watch, WatchSink sink) {
    sink.onCancel(watch::close);
    open.incrementAndGet();
    threads.start(() -> {
      try {
        pump(watch, sink);
      } finally {
        open.decrementAndGet();
      }
    });
  }

  private void pump(FilteredWatch watch, WatchSink sink) {
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
          String closed = watch.closedBecause();
          if (closed != null) {
            endQuietly(sink, Status.UNAVAILABLE.withDescription("watch closed: " + closed
                + " while this client read nothing; watch again from the last revision it received")
                .asRuntimeException());
            return;
          }
          sink.awaitReady(CHECK_INTERVAL);
        }
        sink.send(traces == null ? event : traced(event));
        events.increment();
        if (event.getRevision() != 0) {
          lag.record(Math.max(0, head.getAsLong() - event.getRevision()));
        }
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

  private WatchEvent traced(WatchEvent event) {
    Resource resource = switch (event.getEventCase()) {
      case UPSERT -> event.getUpsert().getResource();
      case DELETE -> event.getDelete().getResource();
      default -> null;
    };
    String traceparent = resource == null ? null : traces.traceparent(resource.getId());
    return traceparent == null ? event : event.toBuilder().setTraceparent(traceparent).build();
  }

  private static void endQuietly(WatchSink sink, io.grpc.StatusRuntimeException status) {
    try {
      sink.fail(status);
    } catch (RuntimeException e) {
      log.debug("watch stream already ended", e);
    }
  }
}
