package io.setpoint.storage.conformance;

import io.setpoint.api.v1.Fence;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Tenancy;
import io.setpoint.api.v1.Type;
import io.setpoint.storage.Backend;
import io.setpoint.storage.Consistency;
import io.setpoint.storage.Page;
import io.setpoint.storage.Watch;
import java.util.List;

/**
 * A backend that passes every call to another one: tests override the one call they want to
 * change (to inject a race, or to keep the store open across an agent restart).
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
  public Resource deleteCas(ID id, String version, Fence fence) {
    return delegate.deleteCas(id, version, fence);
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
  public Watch watch(Type type, Tenancy tenancy, String namePrefix, long sinceRevision) {
    return delegate.watch(type, tenancy, namePrefix, sinceRevision);
  }

  @Override
  public void close() {
    delegate.close();
  }
}
