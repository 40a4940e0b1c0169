package io.setpoint.resource;

import io.setpoint.api.Types;
import io.setpoint.api.core.v1.Event;
import io.setpoint.api.core.v1.Tombstone;
import io.setpoint.api.v1.Type;

/** The types every server registers: events and the tombstones of cascading deletes. */
public final class CoreTypes {
  /** {@code core.v1.Event}: cluster-scoped, owned by the resource it is about. */
  public static final Type EVENT = Types.of("core", "v1", "Event");
  /** {@code core.v1.Tombstone}: a deleted owner whose owned resources are being deleted. */
  public static final Type TOMBSTONE = Types.of("core", "v1", "Tombstone");

  private CoreTypes() {}

  /** Registers the core types. */
  public static void register(Registry registry) {
    registry
        .register(Registration.of(EVENT, Event.class)
            .validate(Hooks.decodeAndValidate(Event.class, (event, v) -> {
              v.requireNonEmpty("reason", event.data().getReason());
              if (!event.data().hasSubject()) {
                v.add("subject", "required", "must be set");
              }
            }))
            .build())
        .register(Registration.of(TOMBSTONE, Tombstone.class)
            .validate(Hooks.decodeAndValidate(Tombstone.class, (tombstone, v) -> {
              if (tombstone.data().getOwner().getUid().isEmpty()) {
                v.add("owner.uid", "required", "must be the uid of the deleted owner");
              }
            }))
            .build());
  }
}
