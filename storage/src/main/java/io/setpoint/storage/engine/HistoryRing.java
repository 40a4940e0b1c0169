package io.setpoint.storage.engine;

import com.google.protobuf.ByteString;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.WatchEvent;
import io.setpoint.storage.engine.StoreEngine.Limits;
import io.setpoint.storage.engine.StoreEngine.RetainedHistory;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * The recent changes an index retains, one per revision, bounded by count and by bytes, and the
 * floor below which reads are compacted. Only the index's single writer calls it, but for {@link
 * #floor()}, which any reader may.
 */
final class HistoryRing {
  private final Entry[] ring;
  private final long maxBytes;
  /** Told of each change compacted away, once its history is cut. */
  private final Consumer<Entry> compacted;
  private int oldest;
  private int size;
  /** The encoded size of the resources of the entries in {@link #ring}. */
  private long bytes;
  /** Reads at revisions below this may be wrong: their history was cut. */
  private volatile long floor;

  HistoryRing(Limits limits, Consumer<Entry> compacted) {
    this.ring = new Entry[limits.history()];
    this.maxBytes = limits.historyBytes();
    this.compacted = compacted;
  }

  /** The oldest revision still readable, and the oldest a watch may resume after. */
  long floor() {
    return floor;
  }

  /** Sets the floor of a history restored from a snapshot, before its changes are added. */
  void startAt(long revision) {
    floor = revision;
  }

  /** Adds the newest change, compacting the oldest ones past the bounds. */
  void add(Entry entry) {
    if (size == ring.length) {
      compactOldest();
    }
    ring[(oldest + size++) % ring.length] = entry;
    bytes += bytes(entry);
    // The newest change always stays, however large, so a watch can still resume just before it.
    while (bytes > maxBytes && size > 1) {
      compactOldest();
    }
  }

  /** Drops the oldest change; reads before its revision become {@code COMPACTED}. */
  private void compactOldest() {
    Entry evicted = ring[oldest];
    ring[oldest] = null;
    oldest = (oldest + 1) % ring.length;
    size--;
    bytes -= bytes(evicted);
    // Publish the new floor before cutting, so a reader that finds a cut chain also sees the floor.
    floor = evicted.revision;
    evicted.cutHistory();
    compacted.accept(evicted);
  }

  /** What an entry counts against the byte budget. */
  private static long bytes(Entry entry) {
    return entry.encodedSize();
  }

  /** Every retained change after {@code since} that {@code query} selects, oldest first, as events. */
  List<WatchEvent> since(long since, Query query) {
    List<WatchEvent> out = new ArrayList<>();
    // The key says all but the group version: decode only what it lets through.
    String prefix = query.rangePrefix();
    for (int i = 0; i < size; i++) {
      Entry e = ring[(oldest + i) % ring.length];
      if (e.revision > since && e.key.startsWith(prefix)) {
        Resource resource = e.resource();
        if (query.matches(resource)) {
          out.add(Entry.event(e.revision, resource, e.deleted));
        }
      }
    }
    return out;
  }

  /**
   * The retained history, for a snapshot; by the writer, which it holds up for one walk that copies
   * references only (the encoded resources are shared, never decoded here).
   */
  RetainedHistory retained() {
    List<RetainedHistory.Change> changes = new ArrayList<>(size);
    List<ByteString> bases = new ArrayList<>();
    for (int i = 0; i < size; i++) {
      Entry e = ring[(oldest + i) % ring.length];
      changes.add(new RetainedHistory.Change(e.revision, e.encoded(), e.deleted));
      // A previous version at or before the floor makes this its key's oldest retained change.
      Entry before = e.previous();
      if (before != null && before.revision <= floor && !before.deleted) {
        bases.add(before.encoded());
      }
    }
    return new RetainedHistory(floor, bases, changes);
  }

  /** How many changes are retained (for tests). */
  int size() {
    return size;
  }

  /** The encoded bytes of the resources retained (for tests). */
  long bytes() {
    return bytes;
  }
}
