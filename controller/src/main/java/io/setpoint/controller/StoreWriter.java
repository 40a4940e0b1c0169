package io.setpoint.controller;

import io.setpoint.api.Shards;
import io.setpoint.api.v1.HashRange;
import io.setpoint.api.v1.Resource;
import io.setpoint.controller.cache.Index;
import io.setpoint.controller.cache.ResourceEvent;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.LongConsumer;

/**
 * An informer's writes to its type's store: each listed resource or watch event is stored first,
 * then the revision it came at is reached, then the change goes to the listener. Resources leaving
 * the ranges held are dropped quietly, since they still exist in another shard. Used by the
 * informer's thread only.
 */
final class StoreWriter {
  private final Interner interner = new Interner();
  private final TypeStore store;
  private final Consumer<ResourceEvent> listener;
  /** Told of each revision applied, before the listener hears of its change. */
  private final LongConsumer reached;
  /**
   * The revision of the last listing of ranges added by a reshape; the watch resumed from before
   * it replays older states of what that listing stored.
   */
  private long replayThrough;

  StoreWriter(TypeStore store, Consumer<ResourceEvent> listener, LongConsumer reached) {
    this.store = store;
    this.listener = listener;
    this.reached = reached;
  }

  /**
   * From now on, an event at or before {@code revision} (a reshape's listing) may show an older
   * state than the store holds, and is then ignored.
   */
  void replayThrough(long revision) {
    replayThrough = revision;
  }

  /**
   * Stores {@code decoded}, as of {@code eventRevision}, and tells the listener unless it is part
   * of the first snapshot or unchanged.
   */
  void upsert(Resource decoded, long eventRevision, boolean initialSnapshot, String traceparent) {
    Resource resource = interner.intern(decoded);
    if (isStaleReplay(resource, eventRevision, version(resource))) {
      reached.accept(eventRevision);
      return;
    }
    Resource previous = store.put(resource);
    reached.accept(eventRevision);
    // The first snapshot is reconciled wholesale at startup; later snapshots only report changes.
    if (!initialSnapshot && (previous == null || !previous.getVersion().equals(resource.getVersion()))) {
      listener.accept(new ResourceEvent(ResourceEvent.Kind.UPSERT, previous, resource, eventRevision, traceparent));
    }
  }

  /** Removes {@code resource}, deleted at {@code eventRevision}, and tells the listener. */
  void delete(Resource resource, long eventRevision, String traceparent) {
    if (isStaleReplay(resource, eventRevision, eventRevision)) {
      reached.accept(eventRevision);
      return;
    }
    Resource previous = store.remove(Index.keyOf(resource.getId()));
    reached.accept(eventRevision);
    listener.accept(new ResourceEvent(ResourceEvent.Kind.DELETE, previous, resource, eventRevision, traceparent));
  }

  /**
   * After a fresh listing: everything stored but not {@code listed} was deleted meanwhile (the
   * listener hears of it, at {@code snapshotRevision}), or left the ranges {@code held} (all when
   * null), and is dropped quietly.
   */
  void dropMissing(Set<String> listed, List<HashRange> held, long snapshotRevision) {
    for (String key : keys()) {
      if (!listed.contains(key)) {
        Resource gone = store.remove(key);
        if (gone != null && (held == null || Shards.contains(held, gone.getId()))) {
          listener.accept(new ResourceEvent(ResourceEvent.Kind.DELETE, gone, gone, snapshotRevision));
        }
      }
    }
  }

  /** Drops quietly every resource outside {@code held}. */
  void dropOutside(List<HashRange> held) {
    for (String key : keys()) {
      Resource r = store.get(key);
      if (r != null && !Shards.contains(held, r.getId())) {
        store.remove(key);
      }
    }
  }

  /** Drops quietly every resource: the informer holds no range. */
  void clear() {
    for (String key : keys()) {
      store.remove(key);
    }
  }

  /**
   * Whether an event replayed after a reshape (at or before the listing of the ranges added) shows
   * an older state than the store already holds from that listing. Later events are never stale,
   * so the usual path costs one comparison.
   */
  private boolean isStaleReplay(Resource resource, long eventRevision, long eventVersion) {
    if (eventRevision > replayThrough) {
      return false;
    }
    Resource stored = store.get(Index.keyOf(resource.getId()));
    return stored != null && version(stored) > eventVersion;
  }

  /** The keys of the resources stored now, as a copy that removing leaves alone. */
  private Set<String> keys() {
    return Set.copyOf(store.keys());
  }

  /** A resource's version: the store revision that wrote it. */
  private static long version(Resource resource) {
    try {
      return Long.parseLong(resource.getVersion());
    } catch (NumberFormatException e) {
      return 0;
    }
  }
}
