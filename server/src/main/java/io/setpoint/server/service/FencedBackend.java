package io.setpoint.server.service;

import io.setpoint.api.v1.Fence;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Tenancy;
import io.setpoint.api.v1.Type;
import io.setpoint.storage.Backend;
import io.setpoint.storage.Consistency;
import io.setpoint.storage.Health;
import io.setpoint.storage.Page;
import io.setpoint.storage.Watch;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A view of a backend whose every write and delete carries one request's fence, so the handler
 * code that serves a fenced request is the same code that serves any other. Reads pass through.
 */
final class FencedBackend implements Backend {
  private final Backend store;
  private final Fence fence;

  FencedBackend(Backend store, Fence fence) {
    this.store = store;
    this.fence = fence;
  }

  @Override
  public Resource read(Consistency consistency, ID id) {
    return store.read(consistency, id);
  }

  @Override
  public Resource writeCas(Resource resource, Fence ignored) {
    return store.writeCas(resource, fence);
  }

  @Override
  public CompletableFuture<Resource> writeCasAsync(Resource resource, Fence ignored) {
    return store.writeCasAsync(resource, fence);
  }

  @Override
  public Resource deleteCas(ID id, String version, Fence ignored) {
    return store.deleteCas(id, version, fence);
  }

  @Override
  public Page list(
      Consistency consistency, Type type, Tenancy tenancy, String namePrefix, int limit, String pageToken) {
    return store.list(consistency, type, tenancy, namePrefix, limit, pageToken);
  }

  @Override
  public List<Resource> listByOwner(ID owner) {
    return store.listByOwner(owner);
  }

  @Override
  public Watch watch(Type type, Tenancy tenancy, String namePrefix, long sinceRevision) {
    return store.watch(type, tenancy, namePrefix, sinceRevision);
  }

  @Override
  public Health health() {
    return store.health();
  }

  /** The view owns nothing: the store outlives every request. */
  @Override
  public void close() {}
}
