package io.setpoint.api;

import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Reference;

/** Builds {@link Reference}s, which point at a resource by name rather than by incarnation. */
public final class References {
  private References() {}

  /** A reference to {@code id} (its uid is dropped), optionally to one section of it. */
  public static Reference of(ID id, String section) {
    return Reference.newBuilder()
        .setType(id.getType())
        .setTenancy(id.getTenancy())
        .setName(id.getName())
        .setSection(section)
        .build();
  }

  /** A reference to the whole of {@code id}. */
  public static Reference of(ID id) {
    return of(id, "");
  }
}
