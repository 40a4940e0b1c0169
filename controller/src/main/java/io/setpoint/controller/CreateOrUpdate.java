package io.setpoint.controller;

import io.grpc.Status.Code;
import io.setpoint.api.Ids;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.client.SetpointClient;
import io.setpoint.client.SetpointException;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Makes a resource what a controller wants, whether or not it exists yet: reads it (linearizably),
 * lets {@code mutate} shape it, and stores it only if that changed anything. The create is
 * create-only and the update a compare-and-swap on the version read, so nothing written meanwhile
 * is overwritten: a concurrent creator turns the create into an update of what it created, a
 * concurrent writer makes the update read and mutate again.
 *
 * <pre>{@code
 * CreateOrUpdate.Outcome out = CreateOrUpdate.createOrUpdate(tools.client(), albumId, album -> album
 *     .setOwner(artist.id())
 *     .setData(Any.pack(Album.newBuilder().setName(title).build())));
 * }</pre>
 */
public final class CreateOrUpdate {
  /** How often it reads and mutates again after losing a race, before giving up. */
  static final int ATTEMPTS = 8;

  private CreateOrUpdate() {}

  /** What {@link #createOrUpdate} did. */
  public enum Operation {
    /** The resource did not exist; it was created. */
    CREATED,
    /** The resource existed and {@code mutate} changed it; it was updated. */
    UPDATED,
    /** The resource existed and {@code mutate} changed nothing; nothing was written. */
    UNCHANGED
  }

  /**
   * The outcome of {@link #createOrUpdate}.
   *
   * @param resource the resource as stored
   * @param operation what was done to it
   */
  public record Outcome(Resource resource, Operation operation) {
    /** Both parts are required. */
    public Outcome {
      Objects.requireNonNull(resource, "resource");
      Objects.requireNonNull(operation, "operation");
    }
  }

  /**
   * Creates or updates the resource {@code id} (which carries no uid). {@code mutate} gets a
   * builder of the stored resource without its statuses (or, when there is none, of just {@code
   * id}) and sets what the controller owns in it: data, metadata, owner. It may run more than once,
   * so it must not have other effects; it must not change the id or the version.
   *
   * @throws SetpointException as the server answered, or {@code ABORTED} after losing {@value
   *     #ATTEMPTS} races in a row
   */
  public static Outcome createOrUpdate(SetpointClient client, ID id, Consumer<Resource.Builder> mutate) {
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
