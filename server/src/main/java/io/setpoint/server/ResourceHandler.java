package io.setpoint.server;

import com.github.f4b6a3.ulid.UlidFactory;
import com.google.protobuf.Any;
import com.google.protobuf.Timestamp;
import io.grpc.StatusRuntimeException;
import io.setpoint.api.Finalizers;
import io.setpoint.api.Ids;
import io.setpoint.api.Resources;
import io.setpoint.api.Shards;
import io.setpoint.api.Statuses;
import io.setpoint.api.core.v1.Tombstone;
import io.setpoint.api.v1.Condition;
import io.setpoint.api.v1.DeleteRequest;
import io.setpoint.api.v1.DeleteResponse;
import io.setpoint.api.v1.Fence;
import io.setpoint.api.v1.HashRange;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.ListByOwnerRequest;
import io.setpoint.api.v1.ListByOwnerResponse;
import io.setpoint.api.v1.ListRequest;
import io.setpoint.api.v1.ListResponse;
import io.setpoint.api.v1.MutateAndValidateRequest;
import io.setpoint.api.v1.MutateAndValidateResponse;
import io.setpoint.api.v1.ReadRequest;
import io.setpoint.api.v1.ReadResponse;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Status;
import io.setpoint.api.v1.Tenancy;
import io.setpoint.api.v1.WatchListRequest;
import io.setpoint.api.v1.WriteRequest;
import io.setpoint.api.v1.WriteResponse;
import io.setpoint.api.v1.WriteStatusRequest;
import io.setpoint.api.v1.WriteStatusResponse;
import io.setpoint.resource.AclHooks;
import io.setpoint.resource.Authorizer;
import io.setpoint.resource.CoreTypes;
import io.setpoint.resource.PermissionDeniedException;
import io.setpoint.resource.Registration;
import io.setpoint.resource.Registry;
import io.setpoint.resource.ValidationException;
import io.setpoint.resource.Violations;
import io.setpoint.storage.Backend;
import io.setpoint.storage.Consistency;
import io.setpoint.storage.Page;
import io.setpoint.storage.StorageException;
import io.setpoint.storage.WatchCursor;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;

/**
 * The resource service's behaviour, independent of transport: the gRPC service and the HTTP
 * gateway both call it. Every method validates its request, runs the admission path and the
 * type's ACL hooks, and talks to the {@link Backend} only with well-formed, authorized requests,
 * so a bad request never changes stored state. Failures are thrown; {@link Errors} maps them.
 */
final class ResourceHandler {
  /** How many pages' worth of resources a List by hash range may read to fill one page. */
  private static final int SHARD_SCAN_PAGES = 16;
  /** Stands for a stored value in an error message to a caller that may not read the resource. */
  static final String HIDDEN = "<shown only with read permission>";

  /** Where {@link #write} runs the work that waits on the store once a commit has answered. */
  private static final Executor FOLLOW_UPS =
      Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("setpoint-write-follow-up-", 0).factory());

  private final Registry registry;
  private final Backend backend;
  private final RequestValidator validator;
  private final Clock clock;
  private final UlidFactory ulids;
  private final ServiceLimits limits;
  private final PageTokens pageTokens;

  public ResourceHandler(Registry registry, Backend backend, Clock clock, ServiceLimits limits) {
    this.registry = registry;
    this.backend = backend;
    this.validator = new RequestValidator(registry);
    this.clock = clock;
    // Random bits from a secure source; the timestamp part from the injected clock.
    this.ulids = UlidFactory.newMonotonicInstance(new SecureRandom(), clock::millis);
    this.limits = limits;
    this.pageTokens = new PageTokens(backend);
  }

  /** The same handler, every write of which goes to the store with {@code fence}. */
  private ResourceHandler(ResourceHandler base, Fence fence) {
    this.registry = base.registry;
    this.backend = new FencedBackend(base.backend, fence);
    this.validator = base.validator;
    this.clock = base.clock;
    this.ulids = base.ulids;
    this.limits = base.limits;
    this.pageTokens = base.pageTokens;
  }

  /**
   * The handler for a request that carries a fence: every write the request makes (the write
   * itself and what follows it, such as removing a finalized resource) is refused unless the
   * fence's lease is still held, checked atomically with the write.
   */
  private ResourceHandler fencedBy(String path, Fence fence) {
    return new ResourceHandler(this, RequestValidator.fence(path, fence));
  }

  /**
   * Checks an id that names one resource of a registered type and returns it with its tenancy
   * defaulted, as every call of this service does first.
   *
   * @throws io.setpoint.resource.ValidationException naming the field under {@code path}
   */
  public ID canonicalId(String path, boolean present, ID id) {
    return validator.id(path, present, id, false);
  }

  public ReadResponse read(Authorizer authz, ReadRequest req) {
    ID id = validator.id("id", req.hasId(), req.getId(), false);
    Registration<?> reg = registration(id);
    Resource resource;
    try {
      resource = backend.read(consistency(req.getConsistent()), id);
    } catch (StorageException e) {
      // Not found, or stored under another group version: either tells whether the name exists.
      reg.acls().read().check(authz, id, null);
      throw e;
    }
    reg.acls().read().check(authz, id, resource);
    return ReadResponse.newBuilder().setResource(resource).build();
  }

  public WriteResponse write(Authorizer authz, WriteRequest req) {
    // The same steps as writeAsync. What waits on the store after its future completed runs on a
    // virtual thread, not inline: the store may complete it on a thread that must not block (a
    // replicated store's connection to the leader), and a read there may wait for that very thread.
    try {
      return writeAsync(authz, req, FOLLOW_UPS).join();
    } catch (CompletionException e) {
      switch (Errors.unwrapped(e)) {
        case RuntimeException cause -> throw cause;
        case Error cause -> throw cause;
        default -> throw e;
      }
    }
  }

  /**
   * {@link #write} without holding the calling thread while the store commits. A blind write goes
   * to the store to be decided over whatever is stored as it is applied ({@link
   * Backend#putAsync}); one the store leaves undecided, and every write with a version, is decided
   * from this member's applied state and handed to {@link Backend#writeCasAsync} as a
   * compare-and-swap. Both complete from the store's thread. Whatever else has to wait on the
   * store (an owner's existence, a linearizable read after a lost race, the delete that follows
   * the last finalizer) runs on {@code blocking}. Admission runs in the calling thread, so its
   * hooks see the same thread as they do for {@link #write}.
   */
  public CompletableFuture<WriteResponse> writeAsync(Authorizer authz, WriteRequest req, Executor blocking) {
    if (req.hasFence()) {
      try {
        return fencedBy("fence", req.getFence()).writeAsync(authz, req.toBuilder().clearFence().build(), blocking);
      } catch (RuntimeException e) {
        return CompletableFuture.failedFuture(e);
      }
    }
    Resource input;
    boolean createOnly = req.getCreateOnly();
    String requestId = req.getRequestId();
    try {
      RequestValidator.requestId("request_id", requestId);
      input = admit(authz, req.hasResource(), req.getResource());
      if (createOnly) {
        checkCreateOnly(input);
      }
      if (!storeMayDecide(input, createOnly)) {
        return orRepeated(input.getId(), requestId, decideHere(authz, input, createOnly, requestId, blocking));
      }
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
    return orRepeated(input.getId(), requestId,
        backend.putAsync(input, Fence.getDefaultInstance(), requestId, ulids.create().toString(), ulids.create().toString())
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
      existing = readForWrite(input.getId(), Consistency.EVENTUAL);
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
      Resource existing = readForWrite(id);
      Resource next = next(authz, existing, input, createOnly);
      if (next == existing) {
        if (finalized(existing)) {
          remove(existing, existing.getVersion()); // a write that raced the last finalizer's removal
        }
        return existing;
      }
      try {
        return afterStore(existing, backend.writeCas(next, Fence.getDefaultInstance(), requestId));
      } catch (StorageException e) {
        if (blind && lostRace(e)) {
          return null;
        }
        throw concealed(authz, existing, e);
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

  /** What to store over {@code existing} (null when there is none), or {@code existing} for a no-op. */
  private Resource next(Authorizer authz, Resource existing, Resource input, boolean createOnly) {
    if (existing == null) {
      return create(authz, input);
    }
    if (createOnly) {
      throw alreadyExists(authz, existing);
    }
    return update(authz, existing, input);
  }

  /** A create-only write names no incarnation and no version: they would contradict it. */
  private static void checkCreateOnly(Resource input) {
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
  private StatusRuntimeException alreadyExists(Authorizer authz, Resource existing) {
    String message = Ids.format(Ids.withoutUid(existing.getId())) + " already exists";
    if (canRead(authz, registration(existing.getId()), existing)) {
      message += " (uid " + existing.getId().getUid() + ")";
      if (Finalizers.isMarkedForDeletion(existing)) {
        message += "; it is being deleted and waits for its finalizers, after which the name is free";
      }
    }
    return Errors.alreadyExists(message + "; nothing was written");
  }

  /** Whether {@link #afterStore} has work to do, which reads or writes the store again. */
  private static boolean hasFollowUp(Resource existing, Resource stored) {
    return ownedCreate(existing, stored) || finalized(stored);
  }

  private static boolean ownedCreate(Resource existing, Resource stored) {
    return existing == null && stored.hasOwner();
  }

  private static boolean finalized(Resource resource) {
    return Finalizers.isMarkedForDeletion(resource) && Finalizers.of(resource).isEmpty();
  }

  /** What a successful store implies: an orphan check for new children, the last finalizer's delete. */
  private Resource afterStore(Resource existing, Resource stored) {
    if (ownedCreate(existing, stored)) {
      undoIfOrphaned(stored);
    }
    if (finalized(stored)) {
      remove(stored, stored.getVersion());
    }
    return stored;
  }

  private static boolean lostRace(StorageException e) {
    return e.reason() == StorageException.Reason.CAS_FAILURE || e.reason() == StorageException.Reason.WRONG_UID;
  }

  private Resource create(Authorizer authz, Resource input) {
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
    if (input.hasOwner()) {
      checkOwnerExists(authz, input.getOwner());
    }
    String uid = ulids.create().toString();
    return input.toBuilder()
        .setId(input.getId().toBuilder().setUid(uid))
        .setGeneration(ulids.create().toString())
        .build();
  }

  /** The resource to store over {@code existing}, or {@code existing} itself for a no-op. */
  private Resource update(Authorizer authz, Resource existing, Resource input) {
    String storedUid = existing.getId().getUid();
    if (!input.getId().getUid().isEmpty() && !input.getId().getUid().equals(storedUid)) {
      throw Errors.failedPrecondition("resource.id.uid " + input.getId().getUid()
          + " does not match the stored incarnation " + shown(authz, existing, storedUid));
    }
    if (!input.getVersion().isEmpty() && !input.getVersion().equals(existing.getVersion())) {
      throw Errors.aborted("resource.version " + input.getVersion()
          + " does not match the stored version " + shown(authz, existing, existing.getVersion()));
    }
    if (!input.getOwner().equals(existing.getOwner())) {
      throw ValidationException.of(
          "resource.owner",
          "immutable",
          "cannot change after create (stored: "
              + shown(authz, existing, existing.hasOwner() ? Ids.format(existing.getOwner()) : "none")
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
        sameData ? existing.getGeneration() : ulids.create().toString(),
        input.getMetadataMap(),
        existing.getStatusMap(),
        input.hasData() ? input.getData() : null);
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
    AclHooks.Read mayRead = registration(owner).acls().read();
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

  public WriteStatusResponse writeStatus(Authorizer authz, WriteStatusRequest req) {
    if (req.hasFence()) {
      return fencedBy("fence", req.getFence()).writeStatus(authz, req.toBuilder().clearFence().build());
    }
    ID id = validator.id("id", req.hasId(), req.getId(), true);
    Violations v = Violations.at("");
    RequestValidator.status(v, req.getKey(), req.hasStatus(), req.getStatus());
    RequestValidator.version(v, "version", req.getVersion());
    v.throwIfAny();
    String requestId = req.getRequestId();
    RequestValidator.requestId("request_id", requestId);
    Registration<?> reg = registration(id);
    boolean blind = req.getVersion().isEmpty();
    return BlindWrites.retry(blind, () -> {
      Resource existing = authorizedForWrite(authz, reg, id);
      // It answers with the whole resource, so it needs read as well as write, asked before
      // anything about the stored resource (whether it exists, its uid) is told.
      reg.acls().read().check(authz, id, existing);
      Resource earlier = requestId.isEmpty() ? null : backend.findRequest(id, requestId);
      if (earlier != null) {
        // Sent again after its answer was lost: what it stored, not a compare-and-swap lost to itself.
        return WriteStatusResponse.newBuilder().setResource(earlier).build();
      }
      if (existing == null) {
        throw Errors.notFound(Ids.format(id) + " not found");
      }
      if (!existing.getId().getUid().equals(id.getUid())) {
        throw Errors.failedPrecondition(
            "id.uid " + id.getUid() + " does not match the stored incarnation " + existing.getId().getUid());
      }
      if (!blind && !req.getVersion().equals(existing.getVersion())) {
        throw Errors.aborted("version " + req.getVersion() + " does not match the stored version " + existing.getVersion());
      }
      Status previous = existing.getStatusMap().get(req.getKey());
      if (previous != null && Statuses.equal(previous, req.getStatus())) {
        return WriteStatusResponse.newBuilder().setResource(existing).build();
      }
      Resource next = existing.toBuilder().putStatus(req.getKey(), stamp(req.getStatus(), previous)).build();
      checkSize(next);
      try {
        return WriteStatusResponse.newBuilder()
            .setResource(backend.writeCas(next, Fence.getDefaultInstance(), requestId)).build();
      } catch (StorageException e) {
        if (blind && e.reason() == StorageException.Reason.CAS_FAILURE) {
          return null;
        }
        throw e;
      }
    }, () -> "status write of " + Ids.format(id));
  }

  /** Sets {@code updated_at}, and each condition's transition time unless its state is unchanged. */
  private Status stamp(Status status, Status previous) {
    Timestamp now = timestamp(clock.instant());
    Map<String, Condition> before = new HashMap<>();
    if (previous != null) {
      for (Condition c : previous.getConditionsList()) {
        before.put(c.getType(), c);
      }
    }
    Status.Builder out = status.toBuilder().setUpdatedAt(now).clearConditions();
    for (Condition c : status.getConditionsList()) {
      Condition prior = before.get(c.getType());
      Timestamp transition =
          prior != null && prior.getState() == c.getState() && prior.hasLastTransitionTime()
              ? prior.getLastTransitionTime()
              : now;
      out.addConditions(c.toBuilder().setLastTransitionTime(transition));
    }
    return out.build();
  }

  public ListResponse list(Authorizer authz, ListRequest req) {
    Registration<?> reg = validator.type("type", req.hasType(), req.getType());
    Violations v = Violations.at("");
    Tenancy tenancy = validator.tenancy(v.field("tenancy"), req.getTenancy(), reg, true);
    RequestValidator.namePrefix(v, "name_prefix", req.getNamePrefix());
    RequestValidator.hashRanges(v, "hash_ranges", req.getHashRangesList());
    // page_size is a uint32: compare unsigned, so 4294967295 is too large rather than negative.
    if (Integer.compareUnsigned(req.getPageSize(), limits.maxPageSize()) > 0) {
      v.add("page_size", "max", "must be at most " + limits.maxPageSize());
    }
    v.throwIfAny();
    reg.acls().list().check(authz, req.getType(), tenancy);
    int pageSize = req.getPageSize() == 0 ? limits.defaultPageSize() : req.getPageSize();
    String token = pageTokens.open(req.getPageToken(), req.getType(), tenancy, req.getNamePrefix());
    Page page = backend.list(
        consistency(req.getConsistent()), req.getType(), tenancy, req.getNamePrefix(), pageSize, token);
    List<Resource> inShard = page.resources();
    if (req.getHashRangesCount() > 0) {
      // A shard's listing reads on (at the same revision) until its page is full, so listing a
      // third of a type takes a third of the pages, not all of them; bounded per request.
      inShard = new ArrayList<>(inRanges(page.resources(), req.getHashRangesList()));
      int scanned = page.resources().size();
      while (inShard.size() < pageSize && !page.nextPageToken().isEmpty() && scanned < pageSize * SHARD_SCAN_PAGES) {
        page = backend.list(consistency(req.getConsistent()), req.getType(), tenancy, req.getNamePrefix(),
            pageSize - inShard.size(), page.nextPageToken());
        inShard.addAll(inRanges(page.resources(), req.getHashRangesList()));
        scanned += page.resources().size();
      }
    }
    return ListResponse.newBuilder()
        .addAllResources(readable(authz, reg, inShard))
        .setNextPageToken(pageTokens.seal(page.nextPageToken(), req.getType(), tenancy, req.getNamePrefix()))
        .setRevision(page.revision())
        .build();
  }

  private static List<Resource> inRanges(List<Resource> resources, List<HashRange> ranges) {
    return resources.stream().filter(r -> Shards.contains(ranges, r.getId())).toList();
  }

  public ListByOwnerResponse listByOwner(Authorizer authz, ListByOwnerRequest req) {
    ID owner = validator.id("owner", req.hasOwner(), req.getOwner(), true);
    Violations v = Violations.at("");
    if (Integer.compareUnsigned(req.getPageSize(), limits.maxPageSize()) > 0) {
      v.add("page_size", "max", "must be at most " + limits.maxPageSize());
    }
    String after = OwnedPages.after(v, req.getPageToken(), owner);
    v.throwIfAny();
    int pageSize = req.getPageSize() == 0 ? limits.defaultPageSize() : req.getPageSize();
    ListByOwnerResponse.Builder out = ListByOwnerResponse.newBuilder();
    List<Resource> readable = new ArrayList<>();
    for (Resource child : backend.listByOwner(owner)) {
      registry.resolve(child.getId().getType()).ifPresent(reg -> {
        if (canRead(authz, reg, child)) {
          readable.add(child);
        }
      });
    }
    OwnedPages.Page page = OwnedPages.page(readable, after, pageSize);
    return out.addAllResources(page.resources()).setNextPageToken(page.last() == null ? "" : OwnedPages.token(owner, page.last()))
        .build();
  }

  public DeleteResponse delete(Authorizer authz, DeleteRequest req) {
    if (req.hasFence()) {
      return fencedBy("fence", req.getFence()).delete(authz, req.toBuilder().clearFence().build());
    }
    ID id = validator.id("id", req.hasId(), req.getId(), false);
    Violations v = Violations.at("");
    RequestValidator.version(v, "version", req.getVersion());
    v.throwIfAny();
    String requestId = req.getRequestId();
    RequestValidator.requestId("request_id", requestId);
    Registration<?> reg = registration(id);
    Resource existing = authorizedForWrite(authz, reg, id);
    if (!requestId.isEmpty() && backend.findRequest(id, requestId) != null) {
      return DeleteResponse.getDefaultInstance(); // sent again after its answer was lost: done already
    }
    if (existing == null || (!id.getUid().isEmpty() && !id.getUid().equals(existing.getId().getUid()))) {
      return DeleteResponse.getDefaultInstance();
    }
    if (!req.getVersion().isEmpty() && !req.getVersion().equals(existing.getVersion())) {
      throw Errors.aborted("version " + req.getVersion()
          + " does not match the stored version " + shown(authz, existing, existing.getVersion()));
    }
    reg.beforeDelete().check(existing);
    try {
      if (!Finalizers.of(existing).isEmpty()) {
        markForDeletion(existing, req.getVersion(), requestId);
      } else {
        remove(existing, req.getVersion(), requestId);
      }
    } catch (StorageException e) {
      throw concealed(authz, existing, e);
    }
    return DeleteResponse.getDefaultInstance();
  }

  /**
   * The stored resource named by {@code id} (any incarnation), or null, once the caller has been
   * found allowed to write it: nothing about it, not even whether it exists, is told before.
   */
  private Resource authorizedForWrite(Authorizer authz, Registration<?> reg, ID id) {
    Resource existing;
    try {
      existing = readForWrite(id);
    } catch (StorageException e) {
      reg.acls().write().check(authz, Resource.newBuilder().setId(id).build());
      throw e;
    }
    reg.acls().write().check(authz, existing != null ? existing : Resource.newBuilder().setId(id).build());
    return existing;
  }

  /**
   * {@code value}, a field of the stored resource, for an error message: shown only to a caller
   * that may read {@code stored}. A write-only caller gets the same code and a message naming the
   * field and rule, not the value.
   */
  private String shown(Authorizer authz, Resource stored, String value) {
    return canRead(authz, registration(stored.getId()), stored) ? value : HIDDEN;
  }

  /** A compare-and-swap the store refused, told without the stored version or uid to non-readers. */
  private StorageException concealed(Authorizer authz, Resource existing, StorageException e) {
    if (existing != null && canRead(authz, registration(existing.getId()), existing)) {
      return e;
    }
    return switch (e.reason()) {
      case CAS_FAILURE -> new StorageException(e.reason(),
          "version does not match the stored version " + HIDDEN + " (it changed meanwhile)");
      case WRONG_UID -> new StorageException(e.reason(),
          "the resource exists with another uid " + HIDDEN);
      default -> e;
    };
  }

  /** Deletes {@code existing}, leaving a tombstone first when it owns resources. */
  private void remove(Resource existing, String version, String requestId) {
    if (!backend.listByOwner(existing.getId()).isEmpty()) {
      tombstone(existing.getId());
    }
    backend.deleteCas(existing.getId(), version, Fence.getDefaultInstance(), requestId);
  }

  private void remove(Resource existing, String version) {
    remove(existing, version, "");
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
            .putMetadata(Finalizers.DELETION_TIMESTAMP, java.time.format.DateTimeFormatter.ISO_INSTANT.format(clock.instant()))
            .build(), Fence.getDefaultInstance(), requestId);
        return Boolean.TRUE;
      } catch (StorageException e) {
        if (!version.isEmpty() || e.reason() != StorageException.Reason.CAS_FAILURE) {
          throw e;
        }
      }
      current[0] = readForWrite(existing.getId());
      return null;
    }, () -> "marking " + Ids.format(existing.getId()) + " for deletion");
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
            .setName(owner.getUid().toLowerCase(java.util.Locale.ROOT))
            .setUid(ulids.create().toString()))
        .setGeneration(ulids.create().toString())
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

  /**
   * Opens a watch. The returned {@link FilteredWatch} drops events the caller may not read, and
   * fails once the caller may no longer list the type.
   */
  public FilteredWatch watchList(Authorizer authz, WatchListRequest req) {
    Registration<?> reg = validator.type("type", req.hasType(), req.getType());
    Violations v = Violations.at("");
    Tenancy tenancy = validator.tenancy(v.field("tenancy"), req.getTenancy(), reg, true);
    RequestValidator.namePrefix(v, "name_prefix", req.getNamePrefix());
    RequestValidator.hashRanges(v, "hash_ranges", req.getHashRangesList());
    v.throwIfAny();
    AclHooks.List mayList = reg.acls().list();
    mayList.check(authz, req.getType(), tenancy);
    WatchCursor watch = backend.watch(req.getType(), tenancy, req.getNamePrefix(), req.getSinceRevision());
    // Asked again while the watch runs: a revoked token or a narrowed policy ends it.
    List<HashRange> ranges = req.getHashRangesList();
    return new FilteredWatch(watch, resource -> Shards.contains(ranges, resource.getId()) && canRead(authz, reg, resource),
        () -> mayList.check(authz, req.getType(), tenancy));
  }

  public MutateAndValidateResponse mutateAndValidate(Authorizer authz, MutateAndValidateRequest req) {
    Resource admitted = admit(authz, req.hasResource(), req.getResource());
    return MutateAndValidateResponse.newBuilder().setResource(admitted).build();
  }

  /** Validate the envelope, mutate, validate, authorize: the admission path of every write. */
  private Resource admit(Authorizer authz, boolean present, Resource raw) {
    Resource resource = validator.resource("resource", present, raw);
    Registration<?> reg = registration(resource.getId());
    Any data = RequestValidator.data("resource.data", reg, resource.hasData(), resource.getData());
    if (data != resource.getData()) {
      resource = Resources.with(resource, resource.getId(), resource.getVersion(), data);
    }
    Resource mutated;
    try {
      mutated = reg.mutate().mutate(resource);
    } catch (ValidationException e) {
      throw e.under("resource");
    }
    if (!mutated.getId().equals(resource.getId()) || !mutated.getOwner().equals(resource.getOwner())
        || !mutated.getVersion().equals(resource.getVersion())) {
      throw new IllegalStateException(
          "the mutate hook of " + reg.dataMessageName() + " changed the id, owner or version of a resource");
    }
    // A hook that re-packed the data may have encoded it differently: canonicalize it again, so
    // equal data has equal bytes. Data the hook left alone is canonical already.
    if (mutated.getData() != resource.getData()) {
      mutated = mutated.toBuilder()
          .setData(RequestValidator.data("resource.data", reg, mutated.hasData(), mutated.getData()))
          .build();
    }
    try {
      reg.validate().validate(mutated);
    } catch (ValidationException e) {
      throw e.under("resource");
    }
    reg.acls().write().check(authz, mutated);
    checkSize(mutated);
    return mutated;
  }

  private void checkSize(Resource resource) {
    int size = resource.getSerializedSize();
    if (size > limits.maxResourceBytes()) {
      throw Errors.tooLarge(
          "resource: encodes to " + size + " bytes; at most " + limits.maxResourceBytes() + " are allowed");
    }
  }

  private Resource readForWrite(ID id) {
    return readForWrite(id, Consistency.STRONG);
  }

  private Resource readForWrite(ID id, Consistency consistency) {
    try {
      return backend.read(consistency, Ids.withoutUid(id));
    } catch (StorageException e) {
      if (e.reason() == StorageException.Reason.NOT_FOUND) {
        return null;
      }
      throw e;
    }
  }

  private Registration<?> registration(ID id) {
    // Validated ids always resolve.
    return registry.resolve(id.getType()).orElseThrow();
  }

  private List<Resource> readable(Authorizer authz, Registration<?> reg, List<Resource> resources) {
    return resources.stream().filter(r -> canRead(authz, reg, r)).toList();
  }

  private static boolean canRead(Authorizer authz, Registration<?> reg, Resource resource) {
    try {
      reg.acls().read().check(authz, resource.getId(), resource);
      return true;
    } catch (PermissionDeniedException e) {
      return false;
    }
  }

  private static Consistency consistency(boolean consistent) {
    return consistent ? Consistency.STRONG : Consistency.EVENTUAL;
  }

  private static Timestamp timestamp(Instant instant) {
    return Timestamp.newBuilder().setSeconds(instant.getEpochSecond()).setNanos(instant.getNano()).build();
  }
}
