package io.setpoint.resource;

import io.setpoint.api.Tenancies;
import io.setpoint.api.Types;
import io.setpoint.api.v1.Tenancy;
import io.setpoint.api.v1.Type;
import io.setpoint.resource.AclHooks.Permission;

/**
 * The caller lacks a permission; answered with {@code PERMISSION_DENIED}. The message names the
 * permission and what it was needed on, e.g. {@code permission denied: the token lacks "write" on
 * demo.v2.Artist default/default/nina}.
 */
public final class PermissionDeniedException extends RuntimeException {
  private final Permission permission;

  /**
   * @param type the resource's type; the default instance when the permission is about no type
   * @param tenancy where the resource is (for a list, which may hold wildcards)
   * @param name the resource's name, or empty for a list
   */
  public PermissionDeniedException(Permission permission, Type type, Tenancy tenancy, String name) {
    super(describe(permission, type, tenancy, name), null, false, false);
    this.permission = permission;
  }

  /** The permission the caller lacked. */
  public Permission permission() {
    return permission;
  }

  private static String describe(Permission permission, Type type, Tenancy tenancy, String name) {
    String lacks = "permission denied: the token lacks \"" + permission.label() + "\"";
    if (type.getGroup().isEmpty()) {
      return lacks; // an operator permission asked about no type in particular
    }
    String where = Tenancies.format(tenancy);
    String target = Types.format(type);
    if (!name.isEmpty()) {
      target += " " + (where.isEmpty() ? "" : where + "/") + name;
    } else if (!where.isEmpty()) {
      target += " in " + where;
    }
    return lacks + " on " + target;
  }
}
