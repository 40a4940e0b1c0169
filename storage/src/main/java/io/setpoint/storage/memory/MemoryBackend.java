package io.setpoint.storage.memory;

import io.setpoint.api.Ids;
import io.setpoint.api.v1.Fence;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Tenancy;
import io.setpoint.api.v1.Type;
import io.setpoint.storage.Backend;
import io.setpoint.storage.Consistency;
import io.setpoint.storage.Page;
import io.setpoint.storage.StorageException;
import io.setpoint.storage.StoreSnapshot;
import io.setpoint.storage.WatchCursor;
import io.setpoint.storage.engine.AppliedRequests;
import io.setpoint.storage.engine.Entry;
import io.setpoint.storage.engine.Fences;
import io.setpoint.storage.engine.Limits;
import io.setpoint.storage.engine.Query;
import io.setpoint.storage.engine.ResourceIndex;
import io.setpoint.storage.engine.WatchHub;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The in-memory backend, for tests and {@code agent -dev}. Reads never lock; writes are serialised
 * by one lock, under which each change is committed to the index and handed to its watchers, so
 * revisions, events and reads agree on one order. Every read is already linearizable.
 */
public final class MemoryBackend implements Backend {
  private final ResourceIndex index;
  private final WatchHub hub;
  private final ReentrantLock writer = new ReentrantLock();
  /** Guarded by {@link #writer}. */
  private final AppliedRequests requests = new AppliedRequests();
  private volatile boolean closed;

  /** A backend with {@link Limits#DEFAULT}. */
  public MemoryBackend() {
    this(Limits.DEFAULT);
  }

  public MemoryBackend(Limits limits) {
    this.index = new ResourceIndex(limits);
    this.hub = new WatchHub(limits);
  }

  @Override
  public Resource read(Consistency consistency, ID id) {
    return index.read(id);
  }

  @Override
  public Resource writeCas(Resource resource, Fence fence) {
    return writeCas(resource, fence, "");
  }

  @Override
  public Resource writeCas(Resource resource, Fence fence, String requestId) {
    writer.lock();
    try {
      checkOpen();
      if (!requestId.isEmpty()) {
        Resource earlier = requests.find(requestId, resource.getId());
        if (earlier != null) {
          return earlier;
        }
      }
      Fences.check(index, fence);
      Entry entry = index.write(resource);
      hub.publish(entry);
      if (!requestId.isEmpty()) {
        requests.record(requestId, entry.resource());
      }
      return entry.resource();
    } finally {
      writer.unlock();
    }
  }

  @Override
  public CompletableFuture<Resource> putAsync(
      Resource resource, Fence fence, String requestId, String uid, String generation) {
    writer.lock();
    try {
      checkOpen();
      Resource earlier = requestId.isEmpty() ? null : requests.find(requestId, resource.getId());
      if (earlier != null) {
        return CompletableFuture.completedFuture(earlier);
      }
      Fences.check(index, fence);
      Entry entry = index.put(resource, uid, generation);
      if (entry == null) {
        return CompletableFuture.completedFuture(index.read(Ids.withoutUid(resource.getId())));
      }
      hub.publish(entry);
      if (!requestId.isEmpty()) {
        requests.record(requestId, entry.resource());
      }
      return CompletableFuture.completedFuture(entry.resource());
    } catch (StorageException e) {
      return CompletableFuture.failedFuture(e);
    } finally {
      writer.unlock();
    }
  }

  /** Taken under the writer's lock, so a write seen in the index is found here too. */
  @Override
  public Resource findRequest(ID id, String requestId) {
    writer.lock();
    try {
      return requests.find(requestId, id);
    } finally {
      writer.unlock();
    }
  }

  @Override
  public Resource deleteCas(ID id, String version, Fence fence, String requestId) {
    writer.lock();
    try {
      checkOpen();
      if (!requestId.isEmpty() && requests.find(requestId, id) != null) {
        return null;
      }
      Fences.check(index, fence);
      Entry tombstone = index.delete(id, version);
      if (!requestId.isEmpty()) {
        requests.record(requestId, AppliedRequests.deleted(id, tombstone == null ? null : tombstone.resource()));
      }
      if (tombstone == null) {
        return null;
      }
      hub.publish(tombstone);
      return tombstone.resource();
    } finally {
      writer.unlock();
    }
  }

  @Override
  public Page list(
      Consistency consistency, Type type, Tenancy tenancy, String namePrefix, int limit, String pageToken) {
    return index.list(new Query(type, tenancy, namePrefix), limit, pageToken);
  }

  @Override
  public List<Resource> listByOwner(ID owner) {
    return index.listByOwner(owner);
  }

  @Override
  public WatchCursor watch(Type type, Tenancy tenancy, String namePrefix, long sinceRevision) {
    return hub.open(writer, () -> index, this::checkOpen, new Query(type, tenancy, namePrefix), sinceRevision);
  }

  @Override
  public long revision() {
    return index.revision();
  }

  @Override
  public StoreSnapshot snapshot() {
    return index.snapshotNow();
  }

  @Override
  public void closeWatches(String reason) {
    writer.lock();
    try {
      hub.closeAll(reason);
    } finally {
      writer.unlock();
    }
  }

  @Override
  public void close() {
    writer.lock();
    try {
      closed = true;
      hub.closeAll("the store is shutting down");
    } finally {
      writer.unlock();
    }
  }

  private void checkOpen() {
    if (closed) {
      throw new StorageException(StorageException.Reason.UNAVAILABLE, "the store is shut down");
    }
  }
}
