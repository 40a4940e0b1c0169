package io.setpoint.storage.engine;

import com.google.protobuf.ByteString;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.storage.engine.StoreEngine.Applied;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The writes that carried a request id, each with what it stored, so that a client repeating a
 * write whose answer it lost (its agent stopped, leadership moved) is told the first one's result
 * instead of writing again. The oldest are forgotten past {@link #MAX_REQUESTS} writes or {@link
 * #MAX_BYTES} bytes of stored resources, whichever comes first.
 *
 * <p>The bounds are fixed rather than sized to the heap: every member of a cluster must forget the
 * same writes at the same point of the log to decide a repeat alike. Not thread-safe: the store's
 * writer changes it and readers take the writer's lock.
 */
final class AppliedRequests {
  /** How many writes are remembered at most. */
  static final int MAX_REQUESTS = 50_000;
  /** How many bytes of stored resources (their encoded size) are remembered at most. */
  static final long MAX_BYTES = 32L << 20;

  private final int maxRequests;
  private final long maxBytes;
  private final Map<String, Remembered> byId = new HashMap<>();
  /** Oldest first; an id written again is forgotten only when its newest entry is. */
  private final ArrayDeque<Remembered> order = new ArrayDeque<>();
  private long bytes;

  /**
   * One remembered write: the key it wrote (the string the index holds) and what it stored, encoded
   * (the bytes the index holds), so remembering costs no copy of the resource.
   */
  private record Remembered(String requestId, String key, ByteString stored) {}

  /** Remembers none yet, within {@link #MAX_REQUESTS} and {@link #MAX_BYTES}. */
  AppliedRequests() {
    this(MAX_REQUESTS, MAX_BYTES);
  }

  AppliedRequests(int maxRequests, long maxBytes) {
    this.maxRequests = maxRequests;
    this.maxBytes = maxBytes;
  }

  /** Remembers {@code applied}, oldest first, as {@link #entries()} lists them. */
  static AppliedRequests of(List<Applied> applied) {
    AppliedRequests requests = new AppliedRequests();
    applied.forEach(a -> requests.record(a.requestId(), StoreKeys.of(a.stored().getId()), a.encoded()));
    return requests;
  }

  /**
   * What the write that carried {@code requestId} stored, when it wrote the resource named by
   * {@code id} (the name, whatever the version or uid); otherwise null: a request id reused for
   * another resource does not make that write a repeat.
   */
  Resource find(String requestId, ID id) {
    Remembered remembered = byId.get(requestId);
    if (remembered == null || !remembered.key().equals(StoreKeys.of(id))) {
      return null;
    }
    return Entry.decode(remembered.stored());
  }

  /**
   * Remembers a delete of {@code id} that carried {@code requestId} by the name alone, since only
   * its being a repeat matters, not what it deleted ({@code deleted}, or null for nothing).
   */
  void recordDelete(String requestId, ID id, Resource deleted) {
    Resource name = Resource.newBuilder().setId(deleted != null ? deleted.getId() : id).build();
    record(requestId, StoreKeys.of(id), name.toByteString());
  }

  /** Remembers that the write carrying {@code requestId} stored {@code stored} under {@code key}. */
  void record(String requestId, String key, ByteString stored) {
    Remembered remembered = new Remembered(requestId, key, stored);
    byId.put(requestId, remembered);
    order.addLast(remembered);
    bytes += stored.size();
    while (order.size() > maxRequests || (bytes > maxBytes && order.size() > 1)) {
      Remembered oldest = order.removeFirst();
      bytes -= oldest.stored().size();
      byId.remove(oldest.requestId(), oldest);
    }
  }

  /** How many writes are remembered. */
  int size() {
    return order.size();
  }

  /** Every remembered write, oldest first: what a snapshot keeps, for {@link #of} to restore. */
  List<Applied> entries() {
    List<Applied> out = new ArrayList<>(order.size());
    for (Remembered remembered : order) {
      out.add(new Applied(remembered.requestId(), remembered.stored()));
    }
    return out;
  }
}
