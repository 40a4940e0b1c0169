package io.setpoint.resource;

import io.setpoint.api.v1.Tenancy;
import io.setpoint.api.v1.Type;

/**
 * Answers whether the caller of a request holds a permission. ACL hooks ask it; the server builds
 * one per request from the caller's token (or {@link #allowAll()} when ACLs are off).
 *
 * <p>The server's token-backed authorizers answer from the live ACL state, and throw an
 * unchecked {@code UNAUTHENTICATED} status exception once their token has been deleted: hooks
 * should let it pass (they only ever need to throw {@link PermissionDeniedException}).
 */
@FunctionalInterface
public interface Authorizer {
  /**
   * True when the caller holds {@code permission} on resources of {@code type} in {@code tenancy}
   * named {@code name}. For {@link Permission#LIST} the name is empty; for the operator
   * permissions type, tenancy and name are ignored.
   */
  boolean allowed(Permission permission, Type type, Tenancy tenancy, String name);

  /** Grants everything: ACLs disabled, or the server's own identity. */
  static Authorizer allowAll() {
    return (permission, type, tenancy, name) -> true;
  }

  /**
   * Throws {@link PermissionDeniedException} naming {@code permission} unless it is allowed.
   */
  default void require(Permission permission, Type type, Tenancy tenancy, String name) {
    if (!allowed(permission, type, tenancy, name)) {
      throw new PermissionDeniedException(permission, type, tenancy, name);
    }
  }
}
