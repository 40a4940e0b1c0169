package io.setpoint.server;

import com.github.f4b6a3.ulid.UlidFactory;
import io.micrometer.core.instrument.MeterRegistry;
import io.setpoint.api.v1.DeleteRequest;
import io.setpoint.api.v1.DeleteResponse;
import io.setpoint.api.v1.Fence;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.ListByOwnerRequest;
import io.setpoint.api.v1.ListByOwnerResponse;
import io.setpoint.api.v1.ListRequest;
import io.setpoint.api.v1.ListResponse;
import io.setpoint.api.v1.MutateAndValidateRequest;
import io.setpoint.api.v1.MutateAndValidateResponse;
import io.setpoint.api.v1.ReadRequest;
import io.setpoint.api.v1.ReadResponse;
import io.setpoint.api.v1.WatchListRequest;
import io.setpoint.api.v1.WriteRequest;
import io.setpoint.api.v1.WriteResponse;
import io.setpoint.api.v1.WriteStatusRequest;
import io.setpoint.api.v1.WriteStatusResponse;
import io.setpoint.resource.AclHooks.Authorizer;
import io.setpoint.resource.Registry;
import io.setpoint.storage.Backend;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.function.Supplier;

/**
 * The resource service's behaviour, independent of transport: the gRPC service and the HTTP
 * gateway both call it. Every method validates its request, runs the admission path and the
 * type's ACL hooks, and talks to the {@link Backend} only with well-formed, authorized requests,
 * so a bad request never changes stored state. Failures are thrown; {@link Errors} maps them.
 *
 * <p>A facade over the jobs: {@link ResourceReads} (Read, List, ListByOwner, WatchList), {@link
 * Admission}, {@link WriteLoop} with its {@link WritePlanner} (Write), {@link StatusWrites}
 * (WriteStatus) and {@link Deletions} (Delete); it applies a request's fence to all of them.
 */
final class ResourceHandler {
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
  private final ResourceReads reads;
  private final Admission admission;
  private final WriteLoop writes;
  private final StatusWrites statusWrites;
  private final Deletions deletions;
  private final WriteMeter meter;

  /** @param meters where the writes are timed ({@link WriteMeter}) */
  public ResourceHandler(Registry registry, Backend backend, Clock clock, ServiceLimits limits, MeterRegistry meters) {
    // Random bits from a secure source; the timestamp part from the injected clock.
    this(registry, backend, new RequestValidator(registry), clock,
        UlidFactory.newMonotonicInstance(new SecureRandom(), clock::millis), limits, new PageTokens(backend),
        new WriteMeter(meters));
  }

  /** The same handler, every write of which goes to the store with {@code fence}. */
  private ResourceHandler(ResourceHandler base, Fence fence) {
    this(base.registry, new FencedBackend(base.backend, fence), base.validator, base.clock, base.ulids, base.limits,
        base.pageTokens, base.meter);
  }

  private ResourceHandler(Registry registry, Backend backend, RequestValidator validator, Clock clock,
      UlidFactory ulids, ServiceLimits limits, PageTokens pageTokens, WriteMeter meter) {
    this.meter = meter;
    this.registry = registry;
    this.backend = backend;
    this.validator = validator;
    this.clock = clock;
    this.ulids = ulids;
    this.limits = limits;
    this.pageTokens = pageTokens;
    Supplier<String> newIds = () -> ulids.create().toString();
    ReadsForWrite readsForWrite = new ReadsForWrite(backend);
    this.reads = new ResourceReads(registry, backend, validator, limits, pageTokens);
    this.admission = new Admission(validator, limits);
    this.deletions = new Deletions(backend, validator, readsForWrite, clock, newIds);
    this.writes = new WriteLoop(backend, validator, admission, readsForWrite, deletions, newIds);
    this.statusWrites = new StatusWrites(backend, validator, readsForWrite, admission, clock);
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
    return reads.read(authz, req);
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
   * {@link #write} without holding the calling thread while the store commits; what has to wait
   * on the store runs on {@code blocking} (see {@link WriteLoop#writeAsync}).
   */
  public CompletableFuture<WriteResponse> writeAsync(Authorizer authz, WriteRequest req, Executor blocking) {
    if (req.hasFence()) {
      try {
        return fencedBy("fence", req.getFence()).writeAsync(authz, req.toBuilder().clearFence().build(), blocking);
      } catch (RuntimeException e) {
        return CompletableFuture.failedFuture(e);
      }
    }
    return meter.timeAsync(() -> writes.writeAsync(authz, req, blocking));
  }

  public WriteStatusResponse writeStatus(Authorizer authz, WriteStatusRequest req) {
    if (req.hasFence()) {
      return fencedBy("fence", req.getFence()).writeStatus(authz, req.toBuilder().clearFence().build());
    }
    return meter.time(() -> statusWrites.writeStatus(authz, req));
  }

  public ListResponse list(Authorizer authz, ListRequest req) {
    return reads.list(authz, req);
  }

  public ListByOwnerResponse listByOwner(Authorizer authz, ListByOwnerRequest req) {
    return reads.listByOwner(authz, req);
  }

  public DeleteResponse delete(Authorizer authz, DeleteRequest req) {
    if (req.hasFence()) {
      return fencedBy("fence", req.getFence()).delete(authz, req.toBuilder().clearFence().build());
    }
    return meter.time(() -> deletions.delete(authz, req));
  }

  /** Opens a watch that shows only what the caller may read ({@link ResourceReads#watchList}). */
  public FilteredWatch watchList(Authorizer authz, WatchListRequest req) {
    return reads.watchList(authz, req);
  }

  public MutateAndValidateResponse mutateAndValidate(Authorizer authz, MutateAndValidateRequest req) {
    return MutateAndValidateResponse.newBuilder().setResource(admission.admit(authz, req.hasResource(), req.getResource())).build();
  }
}
