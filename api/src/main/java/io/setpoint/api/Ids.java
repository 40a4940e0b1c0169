package io.setpoint.api;

import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Reference;
import io.setpoint.api.v1.Tenancy;
import io.setpoint.api.v1.Type;

/**
 * Builds, formats and compares resource {@link ID}s, and the {@link Reference}s that point at a
 * resource by name rather than by incarnation.
 */
public final class Ids {
  private Ids() {}

  /** An id without a uid, which matches whichever incarnation is stored. */
  public static ID of(Type type, Tenancy tenancy, String name) {
    return ID.newBuilder().setType(type).setTenancy(tenancy).setName(name).build();
  }

  /** An id in the default tenancy (defaulted by the server according to the type's scope). */
  public static ID of(Type type, String name) {
    return of(type, Tenancy.getDefaultInstance(), name);
  }

  /** The same id without its uid. */
  public static ID withoutUid(ID id) {
    return id.getUid().isEmpty() ? id : id.toBuilder().clearUid().build();
  }

  /** True when both ids name the same resource (type with version, tenancy, name), ignoring uids. */
  public static boolean sameName(ID a, ID b) {
    return a.getName().equals(b.getName())
        && a.getType().equals(b.getType())
        && a.getTenancy().equals(b.getTenancy());
  }

  /** A reference to {@code id} (its uid is dropped), optionally to one section of it. */
  public static Reference reference(ID id, String section) {
    return Reference.newBuilder()
        .setType(id.getType())
        .setTenancy(id.getTenancy())
        .setName(id.getName())
        .setSection(section)
        .build();
  }

  /** A reference to the whole of {@code id}. */
  public static Reference reference(ID id) {
    return reference(id, "");
  }

  /** The id a reference points at, without a uid. */
  public static ID fromReference(Reference ref) {
    return of(ref.getType(), ref.getTenancy(), ref.getName());
  }

  /**
   * {@code group.version.Kind/partition/namespace/name}, with {@code @uid} when present; for logs
   * and messages.
   */
  public static String format(ID id) {
    StringBuilder out = new StringBuilder(Types.format(id.getType())).append('/');
    String tenancy = Tenancies.format(id.getTenancy());
    if (!tenancy.isEmpty()) {
      out.append(tenancy).append('/');
    }
    out.append(id.getName());
    if (!id.getUid().isEmpty()) {
      out.append('@').append(id.getUid());
    }
    return out.toString();
  }
}
