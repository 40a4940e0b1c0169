package io.setpoint.resource;

import io.setpoint.api.Types;
import io.setpoint.api.core.v1.Event;
import io.setpoint.api.core.v1.Lease;
import io.setpoint.api.core.v1.Tombstone;
import io.setpoint.api.v1.Type;

/** The types every server registers: events, the tombstones of cascading deletes, and leases. */
public final class CoreTypes {
  /** {@code core.v1.Event}: cluster-scoped, owned by the resource it is about; per-type ACLs. */
  public static final Type EVENT = Types.of("core", "v1", "Event");
  /**
   * {@code core.v1.Tombstone}: a deleted owner whose owned resources are being deleted; only the
   * server writes them, and the operator permissions guard them.
   */
  public static final Type TOMBSTONE = Types.of("core", "v1", "Tombstone");
  /**
   * {@code core.v1.Lease}: leader-election leases and the leases with which the instances of a
   * generic loop split its keys; cluster-scoped; per-type ACLs.
   */
  public static final Type LEASE = Types.LEASE;

  private CoreTypes() {}

  /** Registers the core types. */
  public static void register(Registry registry) {
    registry
        // Events are ordinary data that controllers record: per-type permissions, so a remote
        // controller's token needs "write" on core.v1.Event rather than operator:write.
        .register(Registration.of(EVENT, Event.class)
            .acls(AclHooks.perType())
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
            .build())
        // Leases are data of the loops that share keys: per-type permissions, like events.
        .register(Registration.of(LEASE, Lease.class)
            .acls(AclHooks.perType())
            .validate(Hooks.decodeAndValidate(Lease.class, (lease, v) -> {
              v.requireNonEmpty("group", lease.data().getGroup());
              v.requireNonEmpty("holder", lease.data().getHolder());
            }))
            .build());
  }
}
