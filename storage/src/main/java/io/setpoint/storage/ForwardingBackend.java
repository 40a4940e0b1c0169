package io.setpoint.storage;

import io.setpoint.api.v1.Fence;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Tenancy;
import io.setpoint.api.v1.Type;
import io.setpoint.storage.Backend.Page;
import io.setpoint.storage.Backend.WatchCursor;
import java.util.List;

/**
 * A backend that passes every call to another one, for decorating it: override the calls to
 * change (a view that adds something to every write, a test that injects a race). The
 * asynchronous write is not forwarded: it runs {@link #writeCas(Resource, Fence)} of this backend,
 * so an override of that sees every write; a decorator of a backend whose writes wait overrides it
 * too, to keep them off the caller's thread. Writes with a request id run {@link
 * #writeCas(Resource, Fence)} as well, without the id, unless a decorator overrides {@link
 * #writeCas(Resource, Fence, String)} to pass it on. Nor is {@link #putAsync}: a decorator decides
 * no blind write itself (the caller reads and compares-and-swaps, through {@code writeCas}) unless
 * it overrides it.
 */
public class ForwardingBackend implements Backend {
  private final Backend delegate;

  public ForwardingBackend(Backend delegate) {
    this.delegate = delegate;
  }

  @Override
  public Resource read(Consistency consistency, ID id) {
    return delegate.read(consistency, id);
  }

  @Override
  public Resource writeCas(Resource resource, Fence fence) {
    return delegate.writeCas(resource, fence);
  }

  @Override
  public Resource deleteCas(ID id, String version, Fence fence, String requestId) {
    return delegate.deleteCas(id, version, fence, requestId);
  }

  @Override
  public Page list(Consistency consistency, Type type, Tenancy tenancy, String namePrefix, int limit, String pageToken) {
    return delegate.list(consistency, type, tenancy, namePrefix, limit, pageToken);
  }

  @Override
  public List<Resource> listByOwner(ID owner) {
    return delegate.listByOwner(owner);
  }

  @Override
  public WatchCursor watch(Type type, Tenancy tenancy, String namePrefix, long sinceRevision) {
    return delegate.watch(type, tenancy, namePrefix, sinceRevision);
  }

  @Override
  public Resource findRequest(ID id, String requestId) {
    return delegate.findRequest(id, requestId);
  }

  @Override
  public Health health() {
    return delegate.health();
  }

  @Override
  public long revision() {
    return delegate.revision();
  }

  @Override
  public StoreSnapshot snapshot() {
    return delegate.snapshot();
  }

  @Override
  public void closeWatches(String reason) {
    delegate.closeWatches(reason);
  }

  @Override
  public void close() {
    delegate.close();
  }
}
