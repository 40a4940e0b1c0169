package io.setpoint.storage.engine;

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
  private final Map<String, Applied> byId = new HashMap<>();
  /** Oldest first; an id written again is forgotten only when its newest entry is. */
  private final ArrayDeque<Applied> order = new ArrayDeque<>();
  private long bytes;

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
    applied.forEach(a -> requests.record(a.requestId(), a.stored()));
    return requests;
  }

  /**
   * What the write that carried {@code requestId} stored, when it wrote the resource named by
   * {@code id} (the name, whatever the version or uid); otherwise null: a request id reused for
   * another resource does not make that write a repeat.
   */
  Resource find(String requestId, ID id) {
    Applied applied = byId.get(requestId);
    if (applied == null || !StoreKeys.of(applied.stored().getId()).equals(StoreKeys.of(id))) {
      return null;
    }
    return applied.stored();
  }

  /**
   * What a delete of {@code id} that carried a request id is remembered by: the name alone, since
   * only its being a repeat matters, not what it deleted ({@code deleted}, or null for nothing).
   */
  static Resource deleted(ID id, Resource deleted) {
    return Resource.newBuilder().setId(deleted != null ? deleted.getId() : id).build();
  }

  /** Remembers that the write carrying {@code requestId} stored {@code stored}. */
  void record(String requestId, Resource stored) {
    Applied applied = new Applied(requestId, stored);
    byId.put(requestId, applied);
    order.addLast(applied);
    bytes += stored.getSerializedSize();
    while (order.size() > maxRequests || (bytes > maxBytes && order.size() > 1)) {
      Applied oldest = order.removeFirst();
      bytes -= oldest.stored().getSerializedSize();
      byId.remove(oldest.requestId(), oldest);
    }
  }

  /** How many writes are remembered. */
  int size() {
    return order.size();
  }

  /** Every remembered write, oldest first: what a snapshot keeps, for {@link #of} to restore. */
  List<Applied> entries() {
    return new ArrayList<>(order);
  }
}
