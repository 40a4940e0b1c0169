package io.setpoint.storage.engine;

import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.WatchEvent;
import io.setpoint.storage.Backend.WatchCursor;
import io.setpoint.storage.StorageException.Reason;
import io.setpoint.storage.StorageException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One watcher: a backlog (snapshot or replay) delivered first, then live events from a buffer
 * bounded by count and by bytes that the single writer fills. A watcher that falls a whole buffer
 * behind is closed and told which revision to resume after; it never silently misses an event.
 */
final class Subscription implements WatchCursor {
  /** Wakes a consumer blocked on an empty buffer when the watch closes. */
  private static final WatchEvent WAKE_UP = WatchEvent.getDefaultInstance();

  final Query query;
  private final WatchHub hub;
  private final LinkedBlockingQueue<WatchEvent> live;
  private final long maxBytes;
  /** The encoded size of the events in {@link #live}: added by the writer, taken by the consumer. */
  private final AtomicLong liveBytes = new AtomicLong();
  /**
   * A snapshot's entries, delivered first as upserts: decoded, and checked against the query (whose
   * group version the key range does not select), one at a time as they are delivered, so a
   * snapshot of a large store holds a reference per resource. Each slot is cleared once delivered.
   */
  private Entry[] snapshot = new Entry[0];
  private int snapshotNext;
  /** Delivered after the snapshot, from the front; cleared likewise, so a drained backlog is free. */
  private WatchEvent[] backlog = new WatchEvent[0];
  private int backlogNext;
  private volatile String closedBecause;
  /** Set by the consumer's own close(): nothing more is delivered, not even what is buffered. */
  private volatile boolean closedByClient;
  private long lastDelivered;

  Subscription(Query query, WatchHub hub, int buffer, long maxBytes, long startRevision) {
    this.query = query;
    this.hub = hub;
    this.live = new LinkedBlockingQueue<>(buffer);
    this.maxBytes = maxBytes;
    this.lastDelivered = startRevision;
  }

  /** Set once, before the watch is handed to its consumer: {@code snapshot}'s entries, then {@code events}. */
  void backlog(List<Entry> snapshot, List<WatchEvent> events) {
    this.snapshot = snapshot.toArray(new Entry[0]);
    this.backlog = events.toArray(new WatchEvent[0]);
  }

  /** Called by the writer, in commit order. */
  void offer(WatchEvent event) {
    if (closedBecause != null) {
      return;
    }
    long size = event.getSerializedSize();
    long held = liveBytes.get();
    // An empty buffer takes any one event, however large, so every event can be delivered.
    if (held > 0 && held + size > maxBytes) {
      fellBehind("more than " + maxBytes + " bytes of events");
    } else if (!live.offer(event)) {
      fellBehind("more than " + live.size() + " events");
    } else {
      liveBytes.addAndGet(size);
    }
  }

  private void fellBehind(String what) {
    closedBecause = "fell " + what + " behind";
    hub.remove(this);
  }

  /** Closes the watch from the backend's side; the consumer sees {@code WATCH_CLOSED}. */
  void terminate(String because) {
    if (closedBecause == null) {
      closedBecause = because;
    }
    live.offer(WAKE_UP);
  }

  @Override
  public WatchEvent next() throws InterruptedException {
    return poll(null);
  }

  @Override
  public WatchEvent poll(Duration timeout) throws InterruptedException {
    if (closedByClient) {
      throw closed();
    }
    while (snapshotNext < snapshot.length) {
      Entry entry = snapshot[snapshotNext];
      snapshot[snapshotNext++] = null;
      if (snapshotNext == snapshot.length) {
        snapshot = new Entry[0];
        snapshotNext = 0;
      }
      Resource resource = entry.resource();
      if (query.matches(resource)) {
        return delivered(Entry.event(entry.revision, resource, false));
      }
    }
    if (backlogNext < backlog.length) {
      WatchEvent event = backlog[backlogNext];
      backlog[backlogNext++] = null;
      if (backlogNext == backlog.length) {
        backlog = new WatchEvent[0];
      }
      return delivered(event);
    }
    WatchEvent event = live.poll();
    if (event == null) {
      if (closedBecause != null) {
        throw closed();
      }
      event = timeout == null ? live.take() : live.poll(timeout.toNanos(), TimeUnit.NANOSECONDS);
      if (event == null) {
        return null;
      }
    }
    if (event == WAKE_UP || closedByClient) {
      throw closed();
    }
    liveBytes.addAndGet(-event.getSerializedSize());
    return delivered(event);
  }

  private WatchEvent delivered(WatchEvent event) {
    lastDelivered = event.getRevision();
    return event;
  }

  private StorageException closed() {
    return new StorageException(
        Reason.WATCH_CLOSED,
        "watch closed: " + closedBecause + "; resume with since_revision " + lastDelivered);
  }

  @Override
  public String closedBecause() {
    return closedByClient ? null : closedBecause;
  }

  @Override
  public void close() {
    closedByClient = true;
    hub.remove(this);
    terminate("closed by the client");
  }
}
