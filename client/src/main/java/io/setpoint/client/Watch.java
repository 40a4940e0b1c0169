package io.setpoint.client;

import io.grpc.CallOptions;
import io.grpc.Context;
import io.grpc.stub.ClientCalls;
import io.setpoint.api.v1.ResourceServiceGrpc;
import io.setpoint.api.v1.WatchEvent;
import io.setpoint.api.v1.WatchListRequest;
import java.util.Iterator;
import java.util.NoSuchElementException;

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
 */
public final class Watch implements Iterator<WatchEvent>, AutoCloseable {
  private final Context.CancellableContext context;
  private final Iterator<WatchEvent> events;
  private final String address;
  private volatile boolean closed;

  Watch(Rpc rpc, WatchListRequest request) {
    this.address = rpc.address();
    this.context = Context.current().withCancellation();
    Context previous = context.attach();
    try {
      // The call belongs to the cancellable context, so close() can end it from any thread.
      this.events =
          ClientCalls.blockingServerStreamingCall(
              rpc.channel(), ResourceServiceGrpc.getWatchListMethod(), CallOptions.DEFAULT, request);
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
    try {
      return events.hasNext();
    } catch (RuntimeException e) {
      if (closed) {
        return false;
      }
      throw SetpointException.from(e, address);
    }
  }

  /** The next event, waiting for it if needed. */
  @Override
  public WatchEvent next() {
    if (!hasNext()) {
      throw new NoSuchElementException("the watch is closed");
    }
    return events.next();
  }

  /** Cancels the call. Idempotent. */
  @Override
  public void close() {
    closed = true;
    context.cancel(null);
  }
}
