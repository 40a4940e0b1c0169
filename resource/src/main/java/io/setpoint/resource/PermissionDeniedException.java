package io.setpoint.resource;

import io.setpoint.api.Types;
import io.setpoint.api.v1.Type;

/** The caller lacks a permission; answered with {@code PERMISSION_DENIED}. */
public final class PermissionDeniedException extends RuntimeException {
  private final Permission permission;

  public PermissionDeniedException(Permission permission, Type type, String name) {
    super(describe(permission, type, name), null, false, false);
    this.permission = permission;
  }

  /** The permission the caller lacked. */
  public Permission permission() {
    return permission;
  }

  private static String describe(Permission permission, Type type, String name) {
    String on =
        switch (permission) {
          case OPERATOR_READ, OPERATOR_WRITE -> "";
          default -> " on " + Types.format(type) + (name.isEmpty() ? "" : " \"" + name + "\"");
        };
    return "permission denied: the token lacks " + permission.label() + on;
  }
}
