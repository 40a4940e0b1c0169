package io.setpoint.controller.cache;

import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Reference;
import io.setpoint.api.v1.Tenancy;
import io.setpoint.api.v1.Type;

/**
 * Canonical string keys of resources by name (group, kind, tenancy, name; no version, no uid), the
 * same for an {@link ID} and a {@link Reference} to it, so indexes can join on them.
 */
public final class Keys {
  private Keys() {}

  /** The key of the resource {@code id} names. */
  public static String of(ID id) {
    return of(id.getType(), id.getTenancy(), id.getName());
  }

  /** The key of the resource {@code ref} points at. */
  public static String of(Reference ref) {
    return of(ref.getType(), ref.getTenancy(), ref.getName());
  }

  static String of(Type type, Tenancy tenancy, String name) {
    return type.getGroup() + "." + type.getKind() + "/" + tenancy.getPartition() + "/"
        + tenancy.getNamespace() + "/" + name;
  }
}
