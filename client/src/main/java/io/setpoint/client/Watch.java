package io.setpoint.client;

import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.Context;
import io.grpc.Metadata;
import io.grpc.Status;
import io.setpoint.api.v1.ResourceServiceGrpc;
import io.setpoint.api.v1.WatchEvent;
import io.setpoint.api.v1.WatchListRequest;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * A running {@code WatchList} call, read as a blocking iterator: the snapshot as upserts, an
 * {@code EndOfSnapshot}, then every change in commit order.
 *
 * <pre>{@code
 * try (Watch watch = client.watch(request)) {
 *   while (watch.hasNext()) {
 *     WatchEvent event = watch.next();
 *     ...
 *   }
 * }
 * }</pre>
 *
 * <p>{@link #hasNext()} blocks until the next event arrives and throws a {@link
 * SetpointException} when the stream fails (for example {@code UNAVAILABLE} when the server shuts
 * down, or {@code OUT_OF_RANGE} when a resume revision is no longer retained). Interrupting the
 * reading thread cancels the call ({@code CANCELLED}, interrupt flag kept). {@link #close()} may be
 * called from any thread; afterwards {@code hasNext()} returns false. One thread at a time may
 * iterate.
 *
 * <p>Up to {@value #WINDOW} events are asked for ahead of the reader, so a snapshot streams without
 * a round trip per event, while a reader that stops reading still holds the server back.
 */
public final class Watch implements Iterator<WatchEvent>, AutoCloseable {
  static final int WINDOW = 256;

  /** How the call ended, queued after its last event. */
  private record Ended(Status status, Metadata trailers) {}

  private final Context.CancellableContext context;
  private final ClientCall<WatchListRequest, WatchEvent> call;
  private final LinkedBlockingQueue<Object> arrived = new LinkedBlockingQueue<>();
  private final String address;
  private Object head; // the next item, taken from `arrived` but not yet consumed
  private int consumedSinceRequest;
  private volatile boolean closed;

  Watch(Rpc rpc, WatchListRequest request) {
    this.address = rpc.address();
    this.context = Context.current().withCancellation();
    Context previous = context.attach();
    try {
      // The call belongs to the cancellable context, so close() can end it from any thread.
      call = rpc.channel().newCall(ResourceServiceGrpc.getWatchListMethod(), CallOptions.DEFAULT);
      call.start(new ClientCall.Listener<>() {
        @Override
        public void onMessage(WatchEvent event) {
          arrived.add(event);
        }

        @Override
        public void onClose(Status status, Metadata trailers) {
          arrived.add(new Ended(status, trailers));
        }
      }, new Metadata());
      call.sendMessage(request);
      call.halfClose();
      call.request(WINDOW);
    } finally {
      context.detach(previous);
    }
  }

  /** Blocks until an event is available (true) or the watch was closed (false). */
  @Override
  public boolean hasNext() {
    if (closed) {
      return false;
    }
    if (head == null) {
      try {
        head = arrived.take();
      } catch (InterruptedException e) {
        close();
        Thread.currentThread().interrupt();
        throw new SetpointException(
            Status.Code.CANCELLED, "interrupted while waiting for the server", List.of(), e);
      }
    }
    if (head instanceof Ended ended) {
      if (ended.status().isOk() || closed) {
        return false;
      }
      throw SetpointException.from(ended.status().asRuntimeException(ended.trailers()), address);
    }
    return true;
  }

  /** The next event, waiting for it if needed. */
  @Override
  public WatchEvent next() {
    if (!hasNext()) {
      throw new NoSuchElementException("the watch is closed");
    }
    WatchEvent event = (WatchEvent) head;
    head = null;
    if (++consumedSinceRequest == WINDOW / 2) {
      consumedSinceRequest = 0;
      call.request(WINDOW / 2);
    }
    return event;
  }

  /** Cancels the call. Idempotent. */
  @Override
  public void close() {
    closed = true;
    context.cancel(null);
  }
}
