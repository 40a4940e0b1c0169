package io.setpoint.server;

import io.setpoint.api.v1.Fence;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.storage.Backend;
import io.setpoint.storage.ForwardingBackend;
import java.util.concurrent.CompletableFuture;

/**
 * A view of a backend whose every write and delete carries one request's fence, so the handler
 * code that serves a fenced request is the same code that serves any other. Reads pass through.
 */
final class FencedBackend extends ForwardingBackend {
  private final Backend store;
  private final Fence fence;

  FencedBackend(Backend store, Fence fence) {
    super(store);
    this.store = store;
    this.fence = fence;
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
  public Resource writeCas(Resource resource, Fence ignored, String requestId) {
    return store.writeCas(resource, fence, requestId);
  }

  @Override
  public CompletableFuture<Resource> writeCasAsync(Resource resource, Fence ignored, String requestId) {
    return store.writeCasAsync(resource, fence, requestId);
  }

  @Override
  public CompletableFuture<Resource> putAsync(Resource resource, Fence ignored, String requestId, String uid, String generation) {
    return store.putAsync(resource, fence, requestId, uid, generation);
  }

  @Override
  public Resource deleteCas(ID id, String version, Fence ignored, String requestId) {
    return store.deleteCas(id, version, fence, requestId);
  }

  /** The view owns nothing: the store outlives every request. */
  @Override
  public void close() {}
}
