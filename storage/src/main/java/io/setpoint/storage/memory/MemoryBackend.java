package io.setpoint.storage.memory;

import io.setpoint.api.v1.Fence;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Tenancy;
import io.setpoint.api.v1.Type;
import io.setpoint.storage.Backend.Page;
import io.setpoint.storage.Backend.WatchCursor;
import io.setpoint.storage.Backend;
import io.setpoint.storage.Consistency;
import io.setpoint.storage.StorageException;
import io.setpoint.storage.StoreSnapshot;
import io.setpoint.storage.engine.StoreEngine.Limits;
import io.setpoint.storage.engine.StoreEngine.Result;
import io.setpoint.storage.engine.StoreEngine;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * The in-memory backend, for tests and {@code agent -dev}. Reads never lock; writes are serialised
 * by the engine's writer lock, under which each change is committed to the index and handed to its
 * watchers, so revisions, events and reads agree on one order. Every read is already linearizable.
 */
public final class MemoryBackend implements Backend {
  private final StoreEngine engine;

  /** A backend with {@link Limits#DEFAULT}. */
  public MemoryBackend() {
    this(Limits.DEFAULT);
  }

  public MemoryBackend(Limits limits) {
    this.engine = new StoreEngine(limits);
  }

  @Override
  public Resource read(Consistency consistency, ID id) {
    return engine.read(id);
  }

  @Override
  public Resource writeCas(Resource resource, Fence fence) {
    return writeCas(resource, fence, "");
  }

  @Override
  public Resource writeCas(Resource resource, Fence fence, String requestId) {
    return whileOpen(() -> engine.write(resource, fence, requestId)).resource();
  }

  @Override
  public CompletableFuture<Resource> putAsync(
      Resource resource, Fence fence, String requestId, String uid, String generation) {
    try {
      return CompletableFuture.completedFuture(
          whileOpen(() -> engine.put(resource, fence, requestId, uid, generation)).resource());
    } catch (StorageException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /** Taken under the writer's lock, so a write seen in the index is found here too. */
  @Override
  public Resource findRequest(ID id, String requestId) {
    return engine.findRequest(id, requestId);
  }

  @Override
  public Resource deleteCas(ID id, String version, Fence fence, String requestId) {
    Result deleted = whileOpen(() -> engine.delete(id, version, fence, requestId));
    return deleted.effect() == Result.Effect.DELETED ? deleted.resource() : null;
  }

  /** Applies {@code write} unless the backend is closed, holding the writer's lock for both. */
  private Result whileOpen(Supplier<Result> write) {
    return engine.exclusively(() -> {
      engine.checkOpen();
      return write.get();
    });
  }

  @Override
  public Page list(
      Consistency consistency, Type type, Tenancy tenancy, String namePrefix, int limit, String pageToken) {
    return engine.list(type, tenancy, namePrefix, limit, pageToken);
  }

  @Override
  public List<Resource> listByOwner(ID owner) {
    return engine.listByOwner(owner);
  }

  @Override
  public WatchCursor watch(Type type, Tenancy tenancy, String namePrefix, long sinceRevision) {
    return engine.watch(type, tenancy, namePrefix, sinceRevision);
  }

  @Override
  public long revision() {
    return engine.revision();
  }

  @Override
  public StoreSnapshot snapshot() {
    return engine.snapshot();
  }

  @Override
  public void closeWatches(String reason) {
    engine.closeWatches(reason);
  }

  @Override
  public void close() {
    engine.close();
  }
}
