package io.setpoint.server;

import io.setpoint.api.Ids;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.resource.AclHooks.Authorizer;
import io.setpoint.resource.Registration;
import io.setpoint.storage.Backend;
import io.setpoint.storage.Consistency;
import io.setpoint.storage.StorageException;

/**
 * How a write, a status write or a delete reads the resource it replaces: whatever incarnation of
 * the name is stored, null when none is, and nothing of it told to a caller before that caller has
 * been found allowed to write it.
 */
final class ReadsForWrite {
  private final Backend backend;

  ReadsForWrite(Backend backend) {
    this.backend = backend;
  }

  /** The stored resource named by {@code id} (any incarnation), read linearizably, or null. */
  Resource stored(ID id) {
    return stored(id, Consistency.STRONG);
  }

  Resource stored(ID id, Consistency consistency) {
    try {
      return backend.read(consistency, Ids.withoutUid(id));
    } catch (StorageException e) {
      if (e.reason() == StorageException.Reason.NOT_FOUND) {
        return null;
      }
      throw e;
    }
  }

  /**
   * The stored resource named by {@code id} (any incarnation), or null, once the caller has been
   * found allowed to write it: nothing about it, not even whether it exists, is told before.
   */
  Resource authorized(Authorizer authz, Registration<?> reg, ID id) {
    Resource existing;
    try {
      existing = stored(id);
    } catch (StorageException e) {
      reg.acls().write().check(authz, Resource.newBuilder().setId(id).build());
      throw e;
    }
    reg.acls().write().check(authz, existing != null ? existing : Resource.newBuilder().setId(id).build());
    return existing;
  }
}
