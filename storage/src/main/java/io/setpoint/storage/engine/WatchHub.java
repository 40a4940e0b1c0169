package io.setpoint.storage.engine;

import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.WatchEvent;
import io.setpoint.storage.StorageException;
import io.setpoint.storage.engine.ResourceIndex.Written;
import io.setpoint.storage.engine.StoreEngine.Limits;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.Lock;
import java.util.function.Supplier;

/**
 * Fans committed changes out to watchers. Subscriptions are indexed by group and kind, so a write
 * only touches the watchers of its own type, and each event is built once and shared.
 *
 * <p>{@link #subscribe} and {@link #publish} must be called by the store's single writer (under its
 * lock), which is what makes "no event missed, none twice" hold across the snapshot boundary.
 */
final class WatchHub {
  private static final int SNAPSHOT_ATTEMPTS = 3;

  private final Map<String, List<Subscription>> byType = new ConcurrentHashMap<>();
  private final int buffer;
  private final long bufferBytes;

  WatchHub(Limits limits) {
    this.buffer = limits.watchBuffer();
    this.bufferBytes = limits.watchBufferBytes();
  }

  /**
   * Registers a watcher that receives every change committed after {@code revision}. Give it its
   * backlog with {@link #backlog} before handing it out.
   */
  io.setpoint.storage.Backend.WatchCursor subscribe(Query query, long revision) {
    Subscription sub = new Subscription(query, this, buffer, bufferBytes, revision);
    // Add inside compute(): a concurrent remove() of the type's last watcher must not detach the
    // list this subscription joins.
    byType.compute(
        StoreKeys.typePrefix(query.type()),
        (k, subs) -> {
          List<Subscription> list = subs != null ? subs : new CopyOnWriteArrayList<>();
          list.add(sub);
          return list;
        });
    return sub;
  }

  /**
   * Opens a watch on the index {@code current} supplies, for a backend whose writes hold {@code
   * writer}: with {@code sinceRevision} 0, every matching resource as an upsert then an
   * end-of-snapshot marker, otherwise a replay of the changes after it; then the live changes.
   * Takes {@code writer} only to subscribe (and to replay): a snapshot is read outside the lock, at
   * the subscription's revision, while live events committed meanwhile wait in the watch's buffer.
   *
   * @param ensureOpen called under {@code writer} first; throws when the backend is closed
   */
  io.setpoint.storage.Backend.WatchCursor open(
      Lock writer, Supplier<ResourceIndex> current, Runnable ensureOpen, Query query, long sinceRevision) {
    return sinceRevision == 0
        ? openWithSnapshot(writer, current, ensureOpen, query)
        : resume(writer, current, ensureOpen, query, sinceRevision);
  }

  private io.setpoint.storage.Backend.WatchCursor openWithSnapshot(
      Lock writer, Supplier<ResourceIndex> current, Runnable ensureOpen, Query query) {
    for (int attempt = 1; ; attempt++) {
      io.setpoint.storage.Backend.WatchCursor watch;
      ResourceIndex index;
      long at;
      writer.lock();
      try {
        ensureOpen.run();
        index = current.get();
        at = index.revision();
        watch = subscribe(query, at);
      } finally {
        writer.unlock();
      }
      try {
        List<Entry> snapshot = index.snapshot(query, at);
        WatchEvent end = WatchEvent.newBuilder().setRevision(at)
            .setEndOfSnapshot(WatchEvent.EndOfSnapshot.getDefaultInstance()).build();
        ((Subscription) watch).backlog(snapshot, List.of(end));
        return watch;
      } catch (StorageException e) {
        // Writes outran the history while the snapshot was read: take a fresher one.
        watch.close();
        if (e.reason() != StorageException.Reason.COMPACTED || attempt == SNAPSHOT_ATTEMPTS) {
          throw e;
        }
      }
    }
  }

  private io.setpoint.storage.Backend.WatchCursor resume(
      Lock writer, Supplier<ResourceIndex> current, Runnable ensureOpen, Query query, long sinceRevision) {
    writer.lock();
    try {
      ensureOpen.run();
      ResourceIndex index = current.get();
      List<WatchEvent> changes = index.changesSince(sinceRevision, query);
      io.setpoint.storage.Backend.WatchCursor watch = subscribe(query, Math.max(sinceRevision, index.revision()));
      backlog(watch, changes);
      return watch;
    } finally {
      writer.unlock();
    }
  }

  /** Sets the events a watcher receives before its live ones. */
  static void backlog(io.setpoint.storage.Backend.WatchCursor watch, List<WatchEvent> events) {
    ((Subscription) watch).backlog(List.of(), events);
  }

  /**
   * Delivers one committed change to every watcher that selects it. A write that moves a resource
   * to another group version reaches the watchers of the old version as a delete, so their view
   * never keeps a resource that is no longer stored under their type.
   */
  void publish(Written written) {
    if (byType.isEmpty()) {
      return;
    }
    Entry entry = written.entry();
    List<Subscription> subs = byType.get(StoreKeys.typePrefixOf(entry.key));
    if (subs == null) {
      return;
    }
    Resource resource = written.resource();
    WatchEvent event = null;
    WatchEvent leave = null;
    // Decoded only for a watcher the change itself does not reach: the common case never needs it.
    Resource movedFrom = null;
    boolean movedFromRead = false;
    for (Subscription sub : subs) {
      if (sub.query.matches(resource)) {
        if (event == null) {
          event = Entry.event(entry.revision, resource, entry.deleted);
        }
        sub.offer(event);
        continue;
      }
      if (!movedFromRead) {
        movedFrom = movedFrom(entry, resource);
        movedFromRead = true;
      }
      if (movedFrom != null && sub.query.matches(movedFrom)) {
        if (leave == null) {
          leave = WatchEvent.newBuilder().setRevision(entry.revision)
              .setDelete(WatchEvent.Delete.newBuilder().setResource(movedFrom)).build();
        }
        sub.offer(leave);
      }
    }
  }

  /** The version a write replaced when it moved the resource to another group version, else null. */
  private static Resource movedFrom(Entry entry, Resource resource) {
    Entry before = entry.previous();
    if (entry.deleted || before == null || before.deleted) {
      return null;
    }
    Resource replaced = before.resource();
    return replaced.getId().getType().equals(resource.getId().getType()) ? null : replaced;
  }

  /** Closes every watch, telling each consumer {@code because}. */
  void closeAll(String because) {
    for (List<Subscription> subs : byType.values()) {
      for (Subscription sub : subs) {
        sub.terminate(because);
      }
    }
    byType.clear();
  }

  void remove(Subscription sub) {
    byType.computeIfPresent(
        StoreKeys.typePrefix(sub.query.type()),
        (k, subs) -> {
          subs.remove(sub);
          return subs.isEmpty() ? null : subs;
        });
  }
}
