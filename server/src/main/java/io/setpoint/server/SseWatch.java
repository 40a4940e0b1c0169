package io.setpoint.server;

import com.linecorp.armeria.common.HttpHeaderNames;
import com.linecorp.armeria.common.HttpResponse;
import com.linecorp.armeria.common.HttpStatus;
import com.linecorp.armeria.common.MediaType;
import com.linecorp.armeria.common.ResponseHeaders;
import com.linecorp.armeria.common.sse.ServerSentEvent;
import com.linecorp.armeria.common.sse.ServerSentEventBuilder;
import com.linecorp.armeria.common.stream.StreamMessage;
import com.linecorp.armeria.common.stream.StreamWriter;
import com.linecorp.armeria.server.streaming.ServerSentEvents;
import io.grpc.StatusRuntimeException;
import io.setpoint.api.v1.WatchEvent;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One watch as a {@code text/event-stream} response. Each event is named after the watch event's
 * kind ({@code upsert}, {@code delete}, {@code end_of_snapshot}), and its data is the {@code
 * WatchEvent} in the canonical JSON mapping. A failure ends the stream with an {@code error} event
 * whose data is the JSON error body.
 *
 * <p>The SSE {@code id} of an event is its store revision, and so a valid {@code Last-Event-ID} to
 * resume from, except for the upserts of an initial snapshot: those come in key order, not
 * revision order, so resuming from one would skip changes. They carry no id, and a client that
 * reconnects before {@code end_of_snapshot} gets a fresh snapshot.
 */
final class SseWatch implements WatchSink {
  /**
   * How many events may be written and not yet taken by the connection. One at a time made every
   * event wait for a hand-off to the event loop and back, which bounded a watch's snapshot to a few
   * thousand events a second.
   */
  static final int WINDOW = 256;
  /**
   * How many bytes of events may be written and not yet taken, whatever their count: a client that
   * stops reading holds no more than this in the server's buffers before its watch itself falls
   * behind and is closed. One event is always let through, however large.
   */
  static final long WINDOW_BYTES = 1 << 20;

  private final StreamWriter<ServerSentEvent> events = StreamMessage.streaming();
  private final ProtoJson json;
  /** Written only by the streamer's one thread. */
  private boolean inSnapshot;
  /** Each event written and not yet known taken, oldest first; the streamer's alone. */
  private final ArrayDeque<InFlight> unconsumed = new ArrayDeque<>();
  /** The bytes of the events in {@link #unconsumed}. */
  private long unconsumedBytes;

  /** An event written: when the connection takes it, and its size. */
  private record InFlight(CompletableFuture<Void> taken, int bytes) {}

  /** @param snapshot whether the watch starts with a snapshot (it was not resumed) */
  SseWatch(ProtoJson json, boolean snapshot) {
    this.json = json;
    this.inSnapshot = snapshot;
  }

  /** The response that carries the events. */
  HttpResponse response() {
    ResponseHeaders headers = ResponseHeaders.builder(HttpStatus.OK)
        .contentType(MediaType.EVENT_STREAM)
        .set(HttpHeaderNames.CACHE_CONTROL, "no-cache")
        .build();
    return ServerSentEvents.fromPublisher(headers, events);
  }

  @Override
  public void onCancel(Runnable action) {
    events.whenComplete().handle((ok, error) -> {
      action.run();
      return null;
    });
  }

  @Override
  public boolean isCancelled() {
    return !events.isOpen();
  }

  @Override
  public boolean isReady() {
    while (!unconsumed.isEmpty() && unconsumed.peekFirst().taken().isDone()) {
      unconsumedBytes -= unconsumed.removeFirst().bytes();
    }
    return unconsumed.isEmpty() || (unconsumed.size() < WINDOW && unconsumedBytes < WINDOW_BYTES);
  }

  @Override
  public void awaitReady(Duration timeout) throws InterruptedException {
    InFlight oldest = unconsumed.peekFirst();
    if (oldest == null) {
      return;
    }
    try {
      oldest.taken().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException | TimeoutException e) {
      // not ready yet, or the stream ended: the streamer checks again
    }
  }

  @Override
  public void send(WatchEvent event) {
    String kind = event.getEventCase().name().toLowerCase(Locale.ROOT);
    String data = Json.write(json.print(event));
    ServerSentEventBuilder sse = ServerSentEvent.builder().event(kind).data(data);
    if (event.hasEndOfSnapshot()) {
      inSnapshot = false;
    }
    if (!inSnapshot) {
      sse.id(Long.toUnsignedString(event.getRevision()));
    }
    write(sse.build(), data.length());
  }

  @Override
  public void fail(StatusRuntimeException error) {
    String data = Json.write(JsonErrors.of(error).body());
    write(ServerSentEvent.builder().event("error").data(data).build(), data.length());
    events.close();
  }

  private void write(ServerSentEvent event, int bytes) {
    if (events.tryWrite(event)) {
      unconsumed.addLast(new InFlight(events.whenConsumed(), bytes));
      unconsumedBytes += bytes;
    }
  }
}
