package io.setpoint.server;

import io.setpoint.api.v1.Resource;
import io.setpoint.resource.AclHooks.Authorizer;
import io.setpoint.resource.PermissionDeniedException;
import io.setpoint.resource.Registration;
import io.setpoint.storage.StorageException;
import java.util.List;

/**
 * What the resource service tells a caller about stored resources: only a caller that may read a
 * resource sees it or its values, in answers and in errors alike; the others get the same codes
 * without the values.
 */
final class Disclosure {
  /** Stands for a stored value in an error message to a caller that may not read the resource. */
  static final String HIDDEN = "<shown only with read permission>";

  private Disclosure() {}

  /** Whether the caller may read {@code resource}, a resource of {@code reg}'s type. */
  static boolean canRead(Authorizer authz, Registration<?> reg, Resource resource) {
    try {
      reg.acls().read().check(authz, resource.getId(), resource);
      return true;
    } catch (PermissionDeniedException e) {
      return false;
    }
  }

  /**
   * Whether a listing or watch shows {@code resource} to the caller: it may read it, and list its
   * type in the resource's own tenancy (a listing in {@code *} is allowed when the caller may list
   * some of its tenancies, and then shows only those).
   */
  static boolean canList(Authorizer authz, Registration<?> reg, Resource resource) {
    try {
      reg.acls().list().check(authz, resource.getId().getType(), resource.getId().getTenancy());
    } catch (PermissionDeniedException e) {
      return false;
    }
    return canRead(authz, reg, resource);
  }

  /** The resources of {@code resources} a listing shows the caller ({@link #canList}), in order. */
  static List<Resource> listable(Authorizer authz, Registration<?> reg, List<Resource> resources) {
    return resources.stream().filter(r -> canList(authz, reg, r)).toList();
  }

  /**
   * {@code value}, a field of a stored resource, for an error message: shown only to a caller that
   * may read the resource. A write-only caller gets the same code and a message naming the field
   * and rule, not the value.
   */
  static String shown(boolean mayRead, String value) {
    return mayRead ? value : HIDDEN;
  }

  /** A compare-and-swap the store refused, told without the stored version or uid to non-readers. */
  static StorageException concealed(
      Authorizer authz, Registration<?> reg, Resource existing, StorageException e) {
    if (existing != null && canRead(authz, reg, existing)) {
      return e;
    }
    return switch (e.reason()) {
      case CAS_FAILURE -> new StorageException(e.reason(),
          "version does not match the stored version " + HIDDEN + " (it changed meanwhile)");
      case WRONG_UID -> new StorageException(e.reason(),
          "the resource exists with another uid " + HIDDEN);
      default -> e;
    };
  }
}
