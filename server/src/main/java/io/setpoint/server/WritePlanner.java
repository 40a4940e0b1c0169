package io.setpoint.server;

import io.grpc.StatusRuntimeException;
import io.setpoint.api.Ids;
import io.setpoint.api.Resources;
import io.setpoint.api.Resources.Finalizers;
import io.setpoint.api.v1.Resource;
import io.setpoint.resource.ValidationException;
import io.setpoint.resource.Violations;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Plans a write: from the stored resource (or none) and the admitted incoming one, the resource to
 * store, or the stored one itself when the write changes nothing, or else a refusal, thrown as the
 * error the caller gets. A pure function: it does no I/O, fresh uids and generations come from the
 * id source it is given, and what the caller may see of the stored resource from the options.
 */
final class WritePlanner {
  /**
   * What the request says besides its resource.
   *
   * @param createOnly the write may only create
   * @param mayReadStored whether the caller may read the stored resource; asked only for a refusal
   *     that would tell one of its values
   */
  record Options(boolean createOnly, BooleanSupplier mayReadStored) {}

  private final Supplier<String> newIds;

  /** @param newIds fresh, unique ids: the uid of each new resource and each new generation */
  WritePlanner(Supplier<String> newIds) {
    this.newIds = newIds;
  }

  /**
   * What to store over {@code stored} (null when there is none), or {@code stored} itself for a
   * no-op. A create under an owner also needs the owner to exist, which only the store can tell:
   * the caller checks that.
   *
   * @throws StatusRuntimeException or {@link ValidationException}: the write is refused
   */
  Resource plan(Resource stored, Resource input, Options options) {
    if (options.createOnly()) {
      checkCreateOnly(input);
    }
    if (stored == null) {
      return create(input);
    }
    if (options.createOnly()) {
      throw alreadyExists(stored, options.mayReadStored());
    }
    return update(stored, input, options.mayReadStored());
  }

  /** A create-only write names no incarnation and no version: they would contradict it. */
  static void checkCreateOnly(Resource input) {
    Violations v = Violations.at("resource");
    if (!input.getId().getUid().isEmpty()) {
      v.add("id.uid", "create-only", "must be empty in a create-only write: a new resource gets a new uid");
    }
    if (!input.getVersion().isEmpty()) {
      v.add("version", "create-only", "must be empty in a create-only write: there is no stored version to match");
    }
    v.throwIfAny();
  }

  /**
   * The answer to a create-only write of a taken name. It tells a caller that may write but not read
   * the resource no more than a blind write would (that the name is taken); a reader also learns the
   * stored uid and whether it waits for its finalizers.
   */
  private static StatusRuntimeException alreadyExists(Resource existing, BooleanSupplier mayRead) {
    String message = Ids.format(Ids.withoutUid(existing.getId())) + " already exists";
    if (mayRead.getAsBoolean()) {
      message += " (uid " + existing.getId().getUid() + ")";
      if (Finalizers.isMarkedForDeletion(existing)) {
        message += "; it is being deleted and waits for its finalizers, after which the name is free";
      }
    }
    return Errors.alreadyExists(message + "; nothing was written");
  }

  private Resource create(Resource input) {
    if (!input.getId().getUid().isEmpty()) {
      throw Errors.notFound(Ids.format(input.getId()) + " not found: no incarnation with that uid exists");
    }
    if (!input.getVersion().isEmpty()) {
      throw Errors.aborted("version " + input.getVersion() + " does not match: " + Ids.format(input.getId()) + " does not exist");
    }
    if (input.getStatusCount() > 0) {
      throw ValidationException.of("resource.status", "write-status", "cannot be set by Write; use WriteStatus");
    }
    if (Finalizers.isMarkedForDeletion(input)) {
      throw deletionTimestampIsServerOwned();
    }
    String uid = newIds.get();
    return input.toBuilder()
        .setId(input.getId().toBuilder().setUid(uid))
        .setGeneration(newIds.get())
        .build();
  }

  /** The resource to store over {@code existing}, or {@code existing} itself for a no-op. */
  private Resource update(Resource existing, Resource input, BooleanSupplier mayRead) {
    String storedUid = existing.getId().getUid();
    if (!input.getId().getUid().isEmpty() && !input.getId().getUid().equals(storedUid)) {
      throw Errors.failedPrecondition("resource.id.uid " + input.getId().getUid()
          + " does not match the stored incarnation " + Disclosure.shown(mayRead.getAsBoolean(), storedUid));
    }
    if (!input.getVersion().isEmpty() && !input.getVersion().equals(existing.getVersion())) {
      throw Errors.aborted("resource.version " + input.getVersion()
          + " does not match the stored version " + Disclosure.shown(mayRead.getAsBoolean(), existing.getVersion()));
    }
    if (!input.getOwner().equals(existing.getOwner())) {
      throw ValidationException.of(
          "resource.owner",
          "immutable",
          "cannot change after create (stored: "
              + Disclosure.shown(mayRead.getAsBoolean(), existing.hasOwner() ? Ids.format(existing.getOwner()) : "none")
              + ")");
    }
    if (input.getStatusCount() > 0 && !input.getStatusMap().equals(existing.getStatusMap())) {
      throw ValidationException.of("resource.status", "write-status", "cannot be changed by Write; use WriteStatus");
    }
    input = keepDeletionMark(existing, input);
    boolean sameData = input.getData().equals(existing.getData());
    if (sameData && input.getMetadataMap().equals(existing.getMetadataMap())) {
      return existing;
    }
    if (Finalizers.isMarkedForDeletion(existing)) {
      if (!sameData) {
        throw ValidationException.of("resource.data", "deleting",
            "cannot change: the resource is being deleted and waits for its finalizers");
      }
      if (!Finalizers.of(existing).containsAll(Finalizers.of(input))) {
        throw ValidationException.of("resource.metadata", "deleting",
            "finalizers cannot be added to a resource that is being deleted");
      }
    }
    return Resources.of(
        existing.getId(),
        input.hasOwner() ? input.getOwner() : null,
        existing.getVersion(),
        sameData ? existing.getGeneration() : newIds.get(),
        input.getMetadataMap(),
        existing.getStatusMap(),
        input.hasData() ? input.getData() : null);
  }

  /**
   * The deletion mark belongs to the server: a write may leave it out (it is kept) or repeat it,
   * but not set or change it.
   */
  private static Resource keepDeletionMark(Resource existing, Resource input) {
    String stored = existing.getMetadataMap().get(Finalizers.DELETION_TIMESTAMP);
    String given = input.getMetadataMap().get(Finalizers.DELETION_TIMESTAMP);
    if (given != null && !given.equals(stored)) {
      throw deletionTimestampIsServerOwned();
    }
    return stored != null && given == null
        ? input.toBuilder().putMetadata(Finalizers.DELETION_TIMESTAMP, stored).build()
        : input;
  }

  private static ValidationException deletionTimestampIsServerOwned() {
    return ValidationException.of("resource.metadata", "reserved",
        "deletionTimestamp is set by Delete on a resource with finalizers, not by Write");
  }
}
