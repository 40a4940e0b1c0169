package io.setpoint.server;

import io.grpc.StatusRuntimeException;
import io.setpoint.api.Ids;
import io.setpoint.api.Resources.Finalizers;
import io.setpoint.api.v1.Fence;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.WriteRequest;
import io.setpoint.api.v1.WriteResponse;
import io.setpoint.resource.AclHooks;
import io.setpoint.resource.AclHooks.Authorizer;
import io.setpoint.resource.ValidationException;
import io.setpoint.storage.Backend;
import io.setpoint.storage.Consistency;
import io.setpoint.storage.StorageException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

/**
 * Carries an admitted write to the store: decided by the store as it applies it, or planned here
 * ({@link WritePlanner}) over this member's applied state and stored with compare-and-swap, planned
 * again from a linearizable read when that is not enough or the swap loses; then does what a stored
 * write implies (an orphan check, the delete after the last finalizer).
 */
final class WriteLoop {
  private final Backend backend;
  private final RequestValidator validator;
  private final Admission admission;
  private final ReadsForWrite reads;
  private final Deletions deletions;
  private final WritePlanner planner;
  private final Supplier<String> newIds;

  WriteLoop(Backend backend, RequestValidator validator, Admission admission, ReadsForWrite reads,
      Deletions deletions, Supplier<String> newIds) {
    this.backend = backend;
    this.validator = validator;
    this.admission = admission;
    this.reads = reads;
    this.deletions = deletions;
    this.planner = new WritePlanner(newIds);
    this.newIds = newIds;
  }

  /**
   * A Write without a fence, without holding the calling thread while the store commits. A blind
   * write goes to the store to be decided over whatever is stored as it is applied ({@link
   * Backend#putAsync}); one the store leaves undecided, and every write with a version, is decided
   * from this member's applied state and handed to {@link Backend#writeCasAsync} as a
   * compare-and-swap. Both complete from the store's thread. Whatever else has to wait on the
   * store (an owner's existence, a linearizable read after a lost race, the delete that follows
   * the last finalizer) runs on {@code blocking}. Admission runs in the calling thread, so its
   * hooks see the same thread as they do for {@link ResourceHandler#write}.
   */
  CompletableFuture<WriteResponse> writeAsync(Authorizer authz, WriteRequest req, Executor blocking) {
    Resource input;
    boolean createOnly = req.getCreateOnly();
    String requestId = req.getRequestId();
    try {
      RequestValidator.requestId("request_id", requestId);
      input = admission.admit(authz, req.hasResource(), req.getResource());
      if (createOnly) {
        WritePlanner.checkCreateOnly(input);
      }
      if (!storeMayDecide(input, createOnly)) {
        return orRepeated(input.getId(), requestId, decideHere(authz, input, createOnly, requestId, blocking));
      }
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
    return orRepeated(input.getId(), requestId,
        backend.putAsync(input, Fence.getDefaultInstance(), requestId, newIds.get(), newIds.get())
            .handle((stored, failure) -> {
              if (failure == null) {
                return CompletableFuture.completedFuture(response(stored));
              }
              Throwable cause = Errors.unwrapped(failure);
              if (cause instanceof StorageException e && e.reason() == StorageException.Reason.UNDECIDED) {
                return CompletableFuture.supplyAsync(() -> decideHere(authz, input, createOnly, requestId, blocking), blocking)
                    .thenCompose(response -> response);
              }
              return CompletableFuture.<WriteResponse>failedFuture(cause);
            })
            .thenCompose(response -> response));
  }

  /**
   * Whether the store may decide this write as it applies it ({@link Backend#putAsync}), so that
   * concurrent blind writers of one resource cost a round each instead of racing each other's
   * compare-and-swaps: a blind write that is not create-only and sets nothing the server owns.
   */
  private static boolean storeMayDecide(Resource input, boolean createOnly) {
    return !createOnly && input.getVersion().isEmpty() && input.getStatusCount() == 0
        && !Finalizers.isMarkedForDeletion(input);
  }

  /** The write decided here, from this member's applied state and, when that is not enough, a read. */
  private CompletableFuture<WriteResponse> decideHere(
      Authorizer authz, Resource input, boolean createOnly, String requestId, Executor blocking) {
    Resource existing;
    try {
      existing = reads.stored(input.getId(), Consistency.EVENTUAL);
      if (existing == null && input.hasOwner()) {
        // A create under an owner checks the owner with a linearizable read first.
        return CompletableFuture.supplyAsync(() -> nextFromLocalState(authz, existing, input, createOnly), blocking)
            .thenCompose(next -> store(authz, input, createOnly, requestId, existing, next, blocking));
      }
      return store(authz, input, createOnly, requestId, existing, nextFromLocalState(authz, existing, input, createOnly), blocking);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /**
   * {@code write}, or when it fails although the store applied a write of the same resource with
   * the same request id, that write's answer: the caller is sending again a write whose answer it
   * lost, and the first one, already seen here, makes this one conflict. A repeat that reaches the
   * store before the first is applied is answered there ({@link Backend#writeCasAsync(Resource,
   * Fence, String)}).
   */
  private CompletableFuture<WriteResponse> orRepeated(
      ID id, String requestId, CompletableFuture<WriteResponse> write) {
    if (requestId.isEmpty()) {
      return write;
    }
    return write.exceptionallyCompose(failure -> {
      Resource earlier;
      try {
        earlier = backend.findRequest(id, requestId);
      } catch (RuntimeException e) {
        failure.addSuppressed(e);
        earlier = null;
      }
      return earlier != null ? CompletableFuture.completedFuture(response(earlier)) : CompletableFuture.failedFuture(failure);
    });
  }

  /**
   * Stores {@code next}, computed from {@code existing} (this member's applied state), with
   * compare-and-swap; decides from a linearizable read instead when there is no {@code next} or the
   * swap loses to a newer version.
   */
  private CompletableFuture<WriteResponse> store(
      Authorizer authz,
      Resource input,
      boolean createOnly,
      String requestId,
      Resource existing,
      Resource next,
      Executor blocking) {
    if (next == null) {
      return fromLinearizableRead(authz, input, createOnly, requestId, blocking);
    }
    return backend.writeCasAsync(next, Fence.getDefaultInstance(), requestId)
        .handle((stored, failure) -> {
          if (failure == null) {
            return hasFollowUp(existing, stored)
                ? CompletableFuture.supplyAsync(() -> response(afterStore(existing, stored)), blocking)
                : CompletableFuture.completedFuture(response(stored));
          }
          Throwable cause = Errors.unwrapped(failure);
          if (cause instanceof StorageException e && lostRace(e)) {
            return fromLinearizableRead(authz, input, createOnly, requestId, blocking);
          }
          return CompletableFuture.<WriteResponse>failedFuture(cause);
        })
        .thenCompose(response -> response);
  }

  private CompletableFuture<WriteResponse> fromLinearizableRead(
      Authorizer authz, Resource input, boolean createOnly, String requestId, Executor blocking) {
    return CompletableFuture.supplyAsync(
        () -> response(writeFromLinearizableRead(authz, input, createOnly, requestId)), blocking);
  }

  private static WriteResponse response(Resource stored) {
    return WriteResponse.newBuilder().setResource(stored).build();
  }

  /** The write decided from a linearizable read of the resource it replaces. */
  private Resource writeFromLinearizableRead(Authorizer authz, Resource input, boolean createOnly, String requestId) {
    ID id = input.getId();
    boolean blind = input.getVersion().isEmpty();
    // A create-only write that loses its race reads again here and finds the winner's resource.
    return BlindWrites.retry(blind, () -> {
      Resource existing = reads.stored(id);
      Resource next = next(authz, existing, input, createOnly);
      if (next == existing) {
        if (Deletions.finalized(existing)) {
          deletions.remove(existing, existing.getVersion()); // a write that raced the last finalizer's removal
        }
        return existing;
      }
      try {
        return afterStore(existing, backend.writeCas(next, Fence.getDefaultInstance(), requestId));
      } catch (StorageException e) {
        if (blind && lostRace(e)) {
          return null;
        }
        throw Disclosure.concealed(authz, validator.registration(id), existing, e);
      }
    }, () -> "write of " + Ids.format(id));
  }

  /**
   * What to store over {@code existing} (this member's applied state), or {@code null} when that
   * state alone would decide the answer: a conflict, a no-op, an error about the stored resource.
   */
  private Resource nextFromLocalState(Authorizer authz, Resource existing, Resource input, boolean createOnly) {
    Resource next;
    try {
      next = next(authz, existing, input, createOnly);
    } catch (StatusRuntimeException | ValidationException e) {
      return null;
    }
    return next == existing ? null : next;
  }

  /**
   * What to store over {@code existing} (null when there is none), or {@code existing} for a no-op:
   * the planner's answer, once a create under an owner has found its owner.
   */
  private Resource next(Authorizer authz, Resource existing, Resource input, boolean createOnly) {
    Resource next = planner.plan(existing, input, new WritePlanner.Options(
        createOnly, () -> Disclosure.canRead(authz, validator.registration(existing.getId()), existing)));
    if (existing == null && input.hasOwner()) {
      checkOwnerExists(authz, input.getOwner());
    }
    return next;
  }

  /** Whether {@link #afterStore} has work to do, which reads or writes the store again. */
  private static boolean hasFollowUp(Resource existing, Resource stored) {
    return ownedCreate(existing, stored) || Deletions.finalized(stored);
  }

  private static boolean ownedCreate(Resource existing, Resource stored) {
    return existing == null && stored.hasOwner();
  }

  /** What a successful store implies: an orphan check for new children, the last finalizer's delete. */
  private Resource afterStore(Resource existing, Resource stored) {
    if (ownedCreate(existing, stored)) {
      undoIfOrphaned(stored);
    }
    if (Deletions.finalized(stored)) {
      deletions.remove(stored, stored.getVersion());
    }
    return stored;
  }

  private static boolean lostRace(StorageException e) {
    return e.reason() == StorageException.Reason.CAS_FAILURE || e.reason() == StorageException.Reason.WRONG_UID;
  }

  /**
   * The owner was there before the create, but its delete may have run since, and its cascade may
   * have listed its children before this one was stored. So look again after storing: either the
   * cascade's listing came after this write and deletes the child, or this read comes after the
   * owner's delete and the child is taken back here. Nothing is left orphaned either way.
   */
  private void undoIfOrphaned(Resource created) {
    try {
      backend.read(Consistency.STRONG, created.getOwner());
    } catch (StorageException e) {
      if (e.reason() != StorageException.Reason.NOT_FOUND) {
        throw e;
      }
      backend.deleteCas(created.getId(), "");
      throw ValidationException.of("resource.owner", "exists",
          Ids.format(created.getOwner()) + " was deleted while this resource was being created");
    }
  }

  /**
   * Naming an owner needs read permission on it, asked before its existence is told: else a token
   * that may write one type could probe for names and uids of any other.
   */
  private void checkOwnerExists(Authorizer authz, ID owner) {
    AclHooks.Read mayRead = validator.registration(owner).acls().read();
    Resource found;
    try {
      found = backend.read(Consistency.STRONG, owner);
    } catch (StorageException e) {
      mayRead.check(authz, owner, null);
      if (e.reason() == StorageException.Reason.NOT_FOUND) {
        throw ValidationException.of("resource.owner", "exists", Ids.format(owner) + " does not exist");
      }
      throw e;
    }
    mayRead.check(authz, owner, found);
  }
}
