package io.setpoint.server;

import com.google.protobuf.Any;
import io.setpoint.api.Ids;
import io.setpoint.api.Resources.Finalizers;
import io.setpoint.api.core.v1.Tombstone;
import io.setpoint.api.v1.DeleteRequest;
import io.setpoint.api.v1.DeleteResponse;
import io.setpoint.api.v1.Fence;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.resource.AclHooks.Authorizer;
import io.setpoint.resource.CoreTypes;
import io.setpoint.resource.Registration;
import io.setpoint.resource.Violations;
import io.setpoint.storage.Backend;
import io.setpoint.storage.StorageException;
import java.time.Clock;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * Deletes and finalizers: a Delete removes a resource, or marks one that still has finalizers for
 * its controllers to clean up, and a resource that owns others leaves a tombstone for the cascade
 * to follow.
 */
final class Deletions {
  private final Backend backend;
  private final RequestValidator validator;
  private final ReadsForWrite reads;
  private final Clock clock;
  private final Supplier<String> newIds;

  Deletions(Backend backend, RequestValidator validator, ReadsForWrite reads, Clock clock, Supplier<String> newIds) {
    this.backend = backend;
    this.validator = validator;
    this.reads = reads;
    this.clock = clock;
    this.newIds = newIds;
  }

  /** A Delete without a fence. */
  DeleteResponse delete(Authorizer authz, DeleteRequest req) {
    ID id = validator.id("id", req.hasId(), req.getId(), false);
    Violations v = Violations.at("");
    RequestValidator.version(v, "version", req.getVersion());
    v.throwIfAny();
    String requestId = req.getRequestId();
    RequestValidator.requestId("request_id", requestId);
    Registration<?> reg = validator.registration(id);
    Resource existing = reads.authorized(authz, reg, id);
    if (!requestId.isEmpty() && backend.findRequest(id, requestId) != null) {
      return DeleteResponse.getDefaultInstance(); // sent again after its answer was lost: done already
    }
    if (existing == null || (!id.getUid().isEmpty() && !id.getUid().equals(existing.getId().getUid()))) {
      return DeleteResponse.getDefaultInstance();
    }
    if (!req.getVersion().isEmpty() && !req.getVersion().equals(existing.getVersion())) {
      throw Errors.aborted("version " + req.getVersion() + " does not match the stored version "
          + Disclosure.shown(Disclosure.canRead(authz, reg, existing), existing.getVersion()));
    }
    reg.beforeDelete().check(existing);
    try {
      if (!Finalizers.of(existing).isEmpty()) {
        markForDeletion(existing, req.getVersion(), requestId);
      } else {
        remove(existing, req.getVersion(), requestId);
      }
    } catch (StorageException e) {
      throw Disclosure.concealed(authz, reg, existing, e);
    }
    return DeleteResponse.getDefaultInstance();
  }

  /** Whether {@code resource} was marked for deletion and its last finalizer is gone: it must go. */
  static boolean finalized(Resource resource) {
    return Finalizers.isMarkedForDeletion(resource) && Finalizers.of(resource).isEmpty();
  }

  /** Deletes {@code existing} if it still has {@code version}, leaving a tombstone first when it owns resources. */
  void remove(Resource existing, String version) {
    remove(existing, version, "");
  }

  private void remove(Resource existing, String version, String requestId) {
    if (!backend.listByOwner(existing.getId()).isEmpty()) {
      tombstone(existing.getId());
    }
    backend.deleteCas(existing.getId(), version, Fence.getDefaultInstance(), requestId);
  }

  /**
   * Marks a resource that still has finalizers: its controllers see {@code deletionTimestamp},
   * clean up, and remove their finalizers; the last removal deletes it. Marking twice is a no-op.
   */
  private void markForDeletion(Resource existing, String version, String requestId) {
    Resource[] current = {existing};
    BlindWrites.retry(version.isEmpty(), () -> {
      if (current[0] == null || !current[0].getId().getUid().equals(existing.getId().getUid())
          || Finalizers.isMarkedForDeletion(current[0])) {
        return Boolean.TRUE; // deleted, replaced by another incarnation, or marked already
      }
      try {
        backend.writeCas(current[0].toBuilder()
            .putMetadata(Finalizers.DELETION_TIMESTAMP, DateTimeFormatter.ISO_INSTANT.format(clock.instant()))
            .build(), Fence.getDefaultInstance(), requestId);
        return Boolean.TRUE;
      } catch (StorageException e) {
        if (!version.isEmpty() || e.reason() != StorageException.Reason.CAS_FAILURE) {
          throw e;
        }
      }
      current[0] = reads.stored(existing.getId());
      return null;
    }, () -> "marking " + Ids.format(existing.getId()) + " for deletion");
  }

  /**
   * Records, before an owner is deleted, that its owned resources must follow. The tombstone is
   * stored like any resource, so a crash mid-cascade leaves it behind and the cascade controller
   * finishes the work after a restart; if the owner's delete then fails, the controller sees the
   * owner still there and drops the tombstone.
   */
  private void tombstone(ID owner) {
    Resource tombstone = Resource.newBuilder()
        .setId(ID.newBuilder()
            .setType(CoreTypes.TOMBSTONE)
            .setName(owner.getUid().toLowerCase(Locale.ROOT))
            .setUid(newIds.get()))
        .setGeneration(newIds.get())
        .setData(Any.pack(Tombstone.newBuilder().setOwner(owner).build()))
        .build();
    try {
      backend.writeCas(tombstone);
    } catch (StorageException e) {
      if (e.reason() != StorageException.Reason.CAS_FAILURE) {
        throw e;
      }
      // A tombstone for this owner exists already: an earlier delete of it got this far.
    }
  }
}
