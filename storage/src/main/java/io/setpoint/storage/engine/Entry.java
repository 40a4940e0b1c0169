package io.setpoint.storage.engine;

import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.WatchEvent;

/**
 * One version of one key: the resource written at {@code revision}, or, for a tombstone, the
 * resource that was deleted then. Entries of a key form a chain from the newest back through
 * {@link #previous()} as far as the retained history reaches.
 */
final class Entry {
  final String key;
  final long revision;
  final Resource resource;
  final boolean deleted;
  /** Cut (set to null) once no retained revision can need it; read without locks. */
  private volatile Entry previous;

  Entry(String key, long revision, Resource resource, boolean deleted, Entry previous) {
    this.key = key;
    this.revision = revision;
    this.resource = resource;
    this.deleted = deleted;
    this.previous = previous;
  }

  /** The store revision of this change. */
  long revision() {
    return revision;
  }

  /** The stored resource, or the deleted one for a tombstone. */
  Resource resource() {
    return resource;
  }

  /** True when this entry records a deletion. */
  boolean deleted() {
    return deleted;
  }

  Entry previous() {
    return previous;
  }

  void cutHistory() {
    previous = null;
  }

  /** The newest entry of this chain written at or before {@code atRevision}, or null. */
  Entry asOf(long atRevision) {
    Entry e = this;
    while (e != null && e.revision > atRevision) {
      e = e.previous;
    }
    return e;
  }

  /** This change as a watch event. */
  WatchEvent toEvent() {
    WatchEvent.Builder event = WatchEvent.newBuilder().setRevision(revision);
    if (deleted) {
      event.getDeleteBuilder().setResource(resource);
    } else {
      event.getUpsertBuilder().setResource(resource);
    }
    return event.build();
  }
}
