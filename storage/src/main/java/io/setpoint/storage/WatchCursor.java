package io.setpoint.storage;

import io.setpoint.api.v1.WatchEvent;
import java.time.Duration;

/** A stream of {@link WatchEvent}s, read by one consumer. Close it when done. */
public interface WatchCursor extends AutoCloseable {
  /**
   * The next event, waiting as long as it takes.
   *
   * @throws StorageException {@code WATCH_CLOSED} once the backend closed the watch (the message
   *     says why and from which revision to resume)
   * @throws InterruptedException when the waiting thread is interrupted
   */
  WatchEvent next() throws InterruptedException;

  /**
   * The next event, or null if none arrives within {@code timeout}.
   *
   * @throws StorageException {@code WATCH_CLOSED} as {@link #next()}
   */
  WatchEvent poll(Duration timeout) throws InterruptedException;

  /**
   * Why the backend closed this watch (it fell a whole buffer behind, the store is shutting down),
   * or null while it is open or after its consumer closed it. {@link #next()} still delivers the
   * events buffered before it closed, then fails; a consumer that cannot take them (its own client
   * stopped reading) may give up at once instead of holding them.
   */
  default String closedBecause() {
    return null;
  }

  /** Stops the watch; further calls to {@link #next()} fail. Idempotent. */
  @Override
  void close();
}
