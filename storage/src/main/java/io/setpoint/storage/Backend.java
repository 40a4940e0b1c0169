package io.setpoint.storage;

import io.setpoint.api.v1.Fence;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Tenancy;
import io.setpoint.api.v1.Type;
import io.setpoint.api.v1.WatchEvent;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * Where resources live. Every mutation is a compare-and-swap, applied in one global order: the
 * version of a stored resource is the store revision of its last write, as a decimal string.
 * Resources are keyed by group, kind, tenancy and name (not by group version). WatchCursor events are
 * published after commit, in commit order, and a resource is readable through this backend before
 * any watcher of it is told of the change.
 *
 * <p>Tenancies passed in are already defaulted for the type's scope; List and WatchCursor accept {@code
 * *} in either level. Implementations throw {@link StorageException} for every expected failure.
 */
public interface Backend extends AutoCloseable {
  /**
   * The current resource named by {@code id}. With a uid in the id, only that incarnation matches.
   *
   * @throws StorageException {@code NOT_FOUND}; {@code GROUP_VERSION_MISMATCH} when it is stored
   *     under another group version
   */
  Resource read(Consistency consistency, ID id);

  /**
   * Creates or updates a resource; {@code resource.version} is the expected current version
   * (empty: it must not exist). The uid, generation and everything else are stored as given; only
   * the version is assigned.
   *
   * @return the stored resource, with its new version
   * @throws StorageException {@code CAS_FAILURE} when the version does not match; {@code
   *     WRONG_UID} when a resource of that name exists with another uid
   */
  default Resource writeCas(Resource resource) {
    return writeCas(resource, Fence.getDefaultInstance());
  }

  /**
   * {@link #writeCas(Resource)}, applied only if {@code fence} holds when the write is applied:
   * the lease it names is stored, names its holder at its epoch and is not released. The check
   * and the write are one step, so no change of the lease's holder comes in between. The empty
   * fence fences nothing.
   *
   * @throws StorageException {@code FENCED} when the fence does not hold; nothing was written
   */
  Resource writeCas(Resource resource, Fence fence);

  /**
   * {@link #writeCas} without blocking the caller: the returned future completes with the stored
   * resource, or exceptionally with the {@link StorageException} that {@code writeCas} would throw.
   * A backend whose writes wait (for consensus, for disk) completes it from its own threads, so
   * the caller's thread is free meanwhile; the default runs {@code writeCas} in the caller's thread,
   * which suits a backend whose writes never wait.
   */
  default CompletableFuture<Resource> writeCasAsync(Resource resource) {
    return writeCasAsync(resource, Fence.getDefaultInstance());
  }

  /** {@link #writeCasAsync(Resource)} with a {@link #writeCas(Resource, Fence) fence}. */
  default CompletableFuture<Resource> writeCasAsync(Resource resource, Fence fence) {
    return inCallersThread(() -> writeCas(resource, fence));
  }

  /**
   * {@link #writeCasAsync(Resource, Fence)}, applied at most once for {@code requestId}: when this
   * store remembers a write of the same resource name that carried it, nothing is written and the
   * future completes with what that write stored. So a client that lost the answer to a write (its
   * agent stopped, leadership moved) can send it again. The empty id asks for nothing of the kind.
   *
   * <p>The default runs {@link #writeCas(Resource, Fence, String)} in the caller's thread, as
   * {@link #writeCasAsync(Resource, Fence)} does.
   */
  default CompletableFuture<Resource> writeCasAsync(Resource resource, Fence fence, String requestId) {
    return requestId.isEmpty()
        ? writeCasAsync(resource, fence)
        : inCallersThread(() -> writeCas(resource, fence, requestId));
  }

  /**
   * A blind write (one that names no version) decided where writes are ordered, over whatever is
   * stored when it is applied, as etcd's put is: concurrent blind writers of one resource do not
   * lose races to each other, so each costs one round. {@code resource} carries no version, no
   * statuses and no deletion mark.
   *
   * <p>Over a stored resource with the same owner (and the same uid, when {@code resource} names
   * one) that does not wait for its finalizers, it keeps the stored id and statuses, takes {@code
   * resource}'s metadata and data, and keeps the stored generation when the data is unchanged,
   * else takes {@code generation}; when neither data nor metadata change it stores nothing. Where
   * nothing is stored and {@code resource} names neither an owner nor a uid, it creates it with
   * {@code uid} and {@code generation}. The caller chooses both, so that every member of a
   * replicated store applies the same. {@code fence} and {@code requestId} act as for {@link
   * #writeCasAsync(Resource, Fence, String)}.
   *
   * <p>The default decides nothing: it fails with {@code UNDECIDED}, for the caller to read and
   * compare-and-swap instead.
   *
   * @return a future of the stored resource with its new version, or of the stored one unchanged;
   *     it fails with {@code UNDECIDED} when the stored state needs the caller's decision (a create
   *     under an owner, another owner or uid, a resource that waits for its finalizers), with
   *     nothing written
   */
  default CompletableFuture<Resource> putAsync(
      Resource resource, Fence fence, String requestId, String uid, String generation) {
    return CompletableFuture.failedFuture(
        new StorageException(StorageException.Reason.UNDECIDED, getClass().getName() + " decides no blind write itself"));
  }

  private static CompletableFuture<Resource> inCallersThread(Supplier<Resource> write) {
    try {
      return CompletableFuture.completedFuture(write.get());
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /**
   * {@link #writeCasAsync(Resource, Fence, String)}, waiting in the caller's thread. The default
   * ignores the id, which suits a backend whose writes are never left in doubt.
   */
  default Resource writeCas(Resource resource, Fence fence, String requestId) {
    return writeCas(resource, fence);
  }

  /**
   * What the write of the resource named by {@code id} that carried {@code requestId} stored, if
   * this store applied it and still remembers it; otherwise null. Once a caller has read a change
   * from this store, the request of the write that made it is found here too.
   */
  default Resource findRequest(ID id, String requestId) {
    return null;
  }

  /**
   * Deletes a resource if its version is {@code version} (empty: any version). Deleting what is
   * absent, or an incarnation (uid) that is no longer stored, does nothing.
   *
   * @return the deleted resource, or null when nothing was deleted
   * @throws StorageException {@code CAS_FAILURE} when the version does not match; {@code
   *     GROUP_VERSION_MISMATCH} when it is stored under another group version
   */
  default Resource deleteCas(ID id, String version) {
    return deleteCas(id, version, Fence.getDefaultInstance());
  }

  /**
   * {@link #deleteCas(ID, String)}, applied only if {@code fence} holds, checked as for {@link
   * #writeCas(Resource, Fence)}.
   *
   * @throws StorageException {@code FENCED} when the fence does not hold; nothing was deleted
   */
  default Resource deleteCas(ID id, String version, Fence fence) {
    return deleteCas(id, version, fence, "");
  }

  /**
   * {@link #deleteCas(ID, String, Fence)}, applied at most once for {@code requestId} (empty: no
   * id): a delete of the same name that repeats the request id of one the store remembers (with
   * the writes, in {@link #findRequest}) deletes nothing and returns null, whatever was stored
   * since, so a client that lost the answer can send it again without deleting a newer resource.
   */
  Resource deleteCas(ID id, String version, Fence fence, String requestId);

  /**
   * Lists resources of exactly {@code type} in {@code tenancy} whose names start with {@code
   * namePrefix}, in name order within each tenancy. Every page of one listing is read at the
   * revision of the first.
   *
   * @param limit the most resources to return, or 0 for all
   * @param pageToken empty for the first page, else {@link Page#nextPageToken()}
   * @throws StorageException {@code COMPACTED} when a page token's revision is no longer retained;
   *     {@code BAD_PAGE_TOKEN} for a token this listing did not issue
   */
  Page list(
      Consistency consistency,
      Type type,
      Tenancy tenancy,
      String namePrefix,
      int limit,
      String pageToken);

  /**
   * The resources owned by the incarnation {@code owner} (which carries a uid), matched by uid, so
   * an owner rewritten under another group version keeps its children.
   */
  List<Resource> listByOwner(ID owner);

  /**
   * Watches resources of exactly {@code type} in {@code tenancy} whose names start with {@code
   * namePrefix}. With {@code sinceRevision} 0, the watch starts with every matching resource as an
   * upsert and an end-of-snapshot marker; otherwise it replays every change after that revision.
   * A resource rewritten under another group version leaves the watches of its old type as a
   * delete.
   *
   * @param sinceRevision read unsigned, as the API's {@code uint64} it comes from
   * @throws StorageException {@code COMPACTED} when {@code sinceRevision} is older than the
   *     retained history; {@code FUTURE_REVISION} when it is newer than this store's revision
   */
  WatchCursor watch(Type type, Tenancy tenancy, String namePrefix, long sinceRevision);

  /** The revision of the last change this store applied: where a watch that has caught up stands. */
  long revision();

  /**
   * Every live resource of this store (on a cluster member, as it has applied them) as of one
   * revision, copied while writes go on: a consistent backup.
   *
   * @throws StorageException {@code COMPACTED} when writes kept cutting the history the copy
   *     needed faster than it could be read
   * @throws UnsupportedOperationException from a backend that cannot copy itself (the default)
   */
  default StoreSnapshot snapshot() {
    throw new UnsupportedOperationException(getClass().getName() + " cannot take a copy of its store");
  }

  /**
   * Whether this backend can take writes now, and if not why: a durable backend whose disk is full
   * or whose log failed says so here. Cheap enough to ask on every readiness probe. Reads may
   * still be served while it is failing.
   */
  default Health health() {
    return Health.OK;
  }

  /**
   * Ends every open watch with {@code WATCH_CLOSED} and {@code reason}, so that its client watches
   * again (elsewhere, when the agent is stopping); reads, writes and new watches go on.
   */
  void closeWatches(String reason);

  /** Closes every watch and releases resources. */
  @Override
  void close();

  /**
   * One page of a listing.
   *
   * @param resources the resources of this page
   * @param nextPageToken empty on the last page
   * @param revision the store revision every page of the listing is read at
   */
  record Page(List<Resource> resources, String nextPageToken, long revision) {
    public Page {
      resources = List.copyOf(resources);
    }
  }

  /** A stream of {@link WatchEvent}s, read by one consumer. Close it when done. */
  interface WatchCursor extends AutoCloseable {
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
}
