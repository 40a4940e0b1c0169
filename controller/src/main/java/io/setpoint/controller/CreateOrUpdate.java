package io.setpoint.controller;

import io.grpc.Status.Code;
import io.setpoint.api.Ids;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.client.SetpointClient;
import io.setpoint.client.SetpointException;
import io.setpoint.controller.Tools.Outcome;
import io.setpoint.controller.Tools.Outcome.Operation;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * {@link Tools#createOrUpdate}, over the tools' client: read, shape, and create-only or
 * compare-and-swap, again after a lost race.
 */
final class CreateOrUpdate {
  /** How often it reads and mutates again after losing a race, before giving up. */
  static final int ATTEMPTS = 8;

  private CreateOrUpdate() {}

  /** See {@link Tools#createOrUpdate}. */
  static Outcome run(SetpointClient client, ID id, Consumer<Resource.Builder> mutate) {
    if (!id.getUid().isEmpty()) {
      throw new IllegalArgumentException("createOrUpdate takes an id without uid: " + Ids.format(id));
    }
    SetpointException lost = null;
    for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
      Optional<Resource> current = client.findConsistent(id);
      // Statuses are written with WriteStatus, not Write: leave them out of what is compared and sent.
      Resource base = current.map(r -> r.toBuilder().clearStatus().build())
          .orElseGet(() -> Resource.newBuilder().setId(id).build());
      Resource.Builder desired = base.toBuilder();
      mutate.accept(desired);
      if (!desired.getId().equals(base.getId()) || !desired.getVersion().equals(base.getVersion())) {
        throw new IllegalStateException("the mutate function of createOrUpdate changed the id or version of "
            + Ids.format(id));
      }
      try {
        if (current.isEmpty()) {
          return new Outcome(client.create(desired.build()), Operation.CREATED);
        }
        Resource wanted = desired.build();
        if (wanted.equals(base)) {
          return new Outcome(current.get(), Operation.UNCHANGED);
        }
        Resource stored = client.write(wanted);
        // The type's mutate hook may have made it equal to what was stored: the server wrote nothing.
        boolean same = stored.getVersion().equals(base.getVersion());
        return new Outcome(stored, same ? Operation.UNCHANGED : Operation.UPDATED);
      } catch (SetpointException e) {
        // ALREADY_EXISTS: created meanwhile; ABORTED: changed (or deleted) since it was read;
        // FAILED_PRECONDITION: deleted and created again since, under another uid.
        if (e.code() != Code.ALREADY_EXISTS && e.code() != Code.ABORTED && e.code() != Code.FAILED_PRECONDITION) {
          throw e;
        }
        lost = e;
      }
    }
    throw lost;
  }
}
