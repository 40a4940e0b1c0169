package io.setpoint.storage.engine;

import com.google.protobuf.ByteOutput;
import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.UnsafeByteOperations;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.WatchEvent;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;

/**
 * One version of one key: the resource written at {@code revision}, or, for a tombstone, the
 * resource that was deleted then. Entries of a key form a chain from the newest back through
 * {@link #previous()} as far as the retained history reaches.
 *
 * <p>The resource is kept encoded, as the protobuf bytes it was written as, and decoded on each
 * read: a decoded resource is a tree of a dozen objects several times its encoded size, and a store
 * holds every live version and its retained history for as long as it runs.
 */
final class Entry {
  final String key;
  final long revision;
  /** The encoded resource; never changed, so shared by tombstones, snapshots and backups. */
  private final byte[] encoded;
  final boolean deleted;
  /** Cut (set to null) once no retained revision can need it; read without locks. */
  private volatile Entry previous;

  Entry(String key, long revision, byte[] encoded, boolean deleted, Entry previous) {
    this.key = key;
    this.revision = revision;
    this.encoded = encoded;
    this.deleted = deleted;
    this.previous = previous;
  }

  /** An entry of {@code resource}, encoded now. */
  static Entry of(String key, long revision, Resource resource, boolean deleted, Entry previous) {
    return new Entry(key, revision, resource.toByteArray(), deleted, previous);
  }

  /** A tombstone at {@code revision} of what {@code live} stored. */
  static Entry tombstone(long revision, Entry live) {
    return new Entry(live.key, revision, live.encoded, true, live);
  }

  /** The store revision of this change. */
  long revision() {
    return revision;
  }

  /** The stored resource, or the deleted one for a tombstone, decoded afresh. */
  Resource resource() {
    return decode(encoded);
  }

  /** The stored resource as its protobuf encoding, without a copy. */
  ByteString encoded() {
    return UnsafeByteOperations.unsafeWrap(encoded);
  }

  /** The size of the encoded resource: what the entry counts against byte bounds. */
  int encodedSize() {
    return encoded.length;
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

  /** The watch event of a change at {@code revision} that stored or deleted {@code resource}. */
  static WatchEvent event(long revision, Resource resource, boolean deleted) {
    WatchEvent.Builder event = WatchEvent.newBuilder().setRevision(revision);
    if (deleted) {
      event.getDeleteBuilder().setResource(resource);
    } else {
      event.getUpsertBuilder().setResource(resource);
    }
    return event.build();
  }

  /** Decodes bytes this store encoded: they always parse. */
  static Resource decode(byte[] encoded) {
    try {
      return Resource.parseFrom(encoded);
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException("a stored resource no longer parses", e);
    }
  }

  /**
   * The bytes of {@code encoded}: its own array when it wraps one whole (as the store's and a
   * snapshot file's do), so restoring a large store does not hold every resource twice.
   */
  static byte[] array(ByteString encoded) {
    byte[][] whole = new byte[1][];
    try {
      UnsafeByteOperations.unsafeWriteTo(encoded, new ByteOutput() {
        @Override
        public void write(byte value) {}

        @Override
        public void write(byte[] value, int offset, int length) {}

        @Override
        public void writeLazy(byte[] value, int offset, int length) {
          if (offset == 0 && length == value.length && whole[0] == null) {
            whole[0] = value;
          }
        }

        @Override
        public void write(ByteBuffer value) {}

        @Override
        public void writeLazy(ByteBuffer value) {}
      });
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return whole[0] != null && whole[0].length == encoded.size() ? whole[0] : encoded.toByteArray();
  }

  /**
   * Decodes a resource a snapshot or a caller handed over encoded.
   *
   * @throws IllegalArgumentException when the bytes are not a resource
   */
  static Resource decode(ByteString encoded) {
    try {
      return Resource.parseFrom(encoded);
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalArgumentException("an encoded resource does not parse: " + e.getMessage(), e);
    }
  }
}
