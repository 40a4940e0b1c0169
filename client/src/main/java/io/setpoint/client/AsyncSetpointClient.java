package io.setpoint.client;

import io.setpoint.api.operator.v1.AddPeerRequest;
import io.setpoint.api.operator.v1.AddPeerResponse;
import io.setpoint.api.operator.v1.ClusterStatus;
import io.setpoint.api.operator.v1.GetClusterStatusRequest;
import io.setpoint.api.operator.v1.ListPeersRequest;
import io.setpoint.api.operator.v1.Peer;
import io.setpoint.api.operator.v1.RemovePeerRequest;
import io.setpoint.api.operator.v1.RemovePeerResponse;
import io.setpoint.api.operator.v1.ListPeersResponse;
import io.setpoint.api.operator.v1.OperatorServiceGrpc;
import io.setpoint.api.operator.v1.TransferLeaderRequest;
import io.setpoint.api.operator.v1.TransferLeaderResponse;
import io.setpoint.api.acl.v1.AclServiceGrpc;
import io.setpoint.api.acl.v1.BootstrapRequest;
import io.setpoint.api.acl.v1.BootstrapResponse;
import io.setpoint.api.acl.v1.CreateTokenRequest;
import io.setpoint.api.acl.v1.CreateTokenResponse;
import io.setpoint.api.v1.DeleteRequest;
import io.setpoint.api.controller.v1.ControllerInfo;
import io.setpoint.api.controller.v1.ControllerServiceGrpc;
import io.setpoint.api.controller.v1.ListControllersRequest;
import io.setpoint.api.controller.v1.ListControllersResponse;
import io.setpoint.api.controller.v1.ListReconcilesRequest;
import io.setpoint.api.controller.v1.ListReconcilesResponse;
import io.setpoint.api.controller.v1.ReconcileInfo;
import io.setpoint.api.controller.v1.ReconcileRequest;
import io.setpoint.api.v1.Fence;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.ListByOwnerRequest;
import io.setpoint.api.v1.ListByOwnerResponse;
import io.setpoint.api.v1.ListRequest;
import io.setpoint.api.v1.ListResponse;
import io.setpoint.api.v1.ListTypesRequest;
import io.setpoint.api.v1.ListTypesResponse;
import io.setpoint.api.v1.MutateAndValidateRequest;
import io.setpoint.api.v1.MutateAndValidateResponse;
import io.setpoint.api.v1.ReadRequest;
import io.setpoint.api.v1.ReadResponse;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.ResourceServiceGrpc;
import io.setpoint.api.v1.Status;
import io.setpoint.api.v1.Tenancy;
import io.setpoint.api.v1.Type;
import io.setpoint.api.v1.TypeServiceGrpc;
import io.setpoint.api.v1.WatchEvent;
import io.setpoint.api.v1.WatchListRequest;
import io.setpoint.api.v1.WriteRequest;
import io.setpoint.api.v1.WriteStatusRequest;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;

/**
 * The non-blocking face of a {@link SetpointClient}, from {@link SetpointClient#async()}. Every
 * method starts its call at once and returns a future that completes with the result, or
 * exceptionally with a {@link SetpointException}. Cancelling a returned future cancels its call.
 * Futures complete on gRPC's executor: do not block in their callbacks.
 *
 * <p>The blocking counterparts of these methods on {@link SetpointClient} mean exactly the same,
 * and point here for the details.
 */
public final class AsyncSetpointClient {
  /** Longer than the agent's own bound on a membership change, which may include a snapshot's transfer. */
  private static final Duration MEMBERSHIP_DEADLINE = Duration.ofMinutes(3);

  private final Rpc rpc;
  /** Sent with every write, status write and delete; the empty fence sends none. */
  private final Fence fence;
  /** Told of every resource a write or status write stored, before the call completes. */
  private final Consumer<? super Resource> stored;

  AsyncSetpointClient(Rpc rpc, Fence fence, Consumer<? super Resource> stored) {
    this.rpc = rpc;
    this.fence = fence;
    this.stored = stored;
  }

  private Resource stored(Resource resource) {
    stored.accept(resource);
    return resource;
  }

  private boolean fenced() {
    return !fence.getLease().isEmpty();
  }

  /** Reads a resource, eventually consistent (monotonic per server). */
  public CompletableFuture<Resource> read(ID id) {
    return read(id, false);
  }

  /** Reads a resource with a linearizable read. */
  public CompletableFuture<Resource> readConsistent(ID id) {
    return read(id, true);
  }

  private CompletableFuture<Resource> read(ID id, boolean consistent) {
    ReadRequest request = ReadRequest.newBuilder().setId(id).setConsistent(consistent).build();
    return rpc.unary(ResourceServiceGrpc.getReadMethod(), request, ReadResponse::getResource);
  }

  /**
   * Creates or updates a resource and completes with it as stored. An empty version is a blind
   * write; a version makes it a compare-and-swap ({@code ABORTED} when the stored version differs).
   * A write that changes neither data nor metadata stores nothing and completes with the stored
   * resource. Each write carries a new request id, so when an agent fails it with {@code
   * UNAVAILABLE} (it stopped, or leadership moved mid-write) the client sends it again, and the
   * store applies it at most once.
   */
  public CompletableFuture<Resource> write(Resource resource) {
    return write(WriteRequest.newBuilder().setResource(resource).build());
  }

  /**
   * Creates a resource only if its name is free and completes with it as stored. When a resource
   * of that name exists (even one being deleted that waits for its finalizers) nothing is written
   * and it fails with {@code ALREADY_EXISTS}. The resource must carry neither uid nor version.
   */
  public CompletableFuture<Resource> create(Resource resource) {
    return write(WriteRequest.newBuilder().setResource(resource).setCreateOnly(true).build());
  }

  /**
   * Writes as {@code request} says (create-only, fence, request id) and completes with the resource
   * as stored. A request id of the caller's own makes the caller's retries safe too: sent again,
   * even from another process or after a restart, the write is applied at most once and answered
   * with what the first stored, as long as the store remembers it (the last 50,000 writes with
   * request ids). Without one it gets a new one, as {@link #write(Resource)} does, so that the
   * channel may send it again when its agent fails it with {@code UNAVAILABLE} ({@link
   * CallRetries}).
   */
  public CompletableFuture<Resource> write(WriteRequest request) {
    WriteRequest.Builder sent = request.toBuilder().setRequestId(requestId(request.getRequestId()));
    if (fenced() && !request.hasFence()) {
      sent.setFence(fence);
    }
    return rpc.unary(ResourceServiceGrpc.getWriteMethod(), sent.build(), response -> stored(response.getResource()));
  }

  /** {@code given}, or a new request id when it is empty. */
  private static String requestId(String given) {
    return given.isEmpty() ? newRequestId() : given;
  }

  /** 128 random bits in base64url: 22 characters. Unique, not secret. */
  static String newRequestId() {
    ByteBuffer bits = ByteBuffer.allocate(16);
    bits.putLong(ThreadLocalRandom.current().nextLong()).putLong(ThreadLocalRandom.current().nextLong());
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bits.array());
  }

  /**
   * Replaces the status entry {@code key} of the incarnation {@code id} (which must carry its
   * uid), whatever its version.
   */
  public CompletableFuture<Resource> writeStatus(ID id, String key, Status status) {
    return writeStatus(id, key, status, "");
  }

  /** Like {@link #writeStatus(ID, String, Status)}, if the resource is still at {@code version}. */
  public CompletableFuture<Resource> writeStatus(ID id, String key, Status status, String version) {
    return writeStatus(WriteStatusRequest.newBuilder().setId(id).setKey(key).setStatus(status).setVersion(version).build());
  }

  /**
   * Writes one status entry as {@code request} says, applied at most once for its request id as
   * {@link #write(WriteRequest)} is (it gets one when it has none): a compare-and-swap sent again
   * after its answer was lost is answered with what it stored, not {@code ABORTED}.
   */
  public CompletableFuture<Resource> writeStatus(WriteStatusRequest request) {
    WriteStatusRequest.Builder sent = request.toBuilder().setRequestId(requestId(request.getRequestId()));
    if (fenced() && !request.hasFence()) {
      sent.setFence(fence);
    }
    return rpc.unary(ResourceServiceGrpc.getWriteStatusMethod(), sent.build(), response -> stored(response.getResource()));
  }

  /**
   * One page of a listing. Pass the response's {@code next_page_token} back in the request for the
   * next one; every page is read at the revision of the first.
   */
  public CompletableFuture<ListResponse> list(ListRequest request) {
    return rpc.unary(ResourceServiceGrpc.getListMethod(), request, response -> response);
  }

  /** Every page of a listing, from {@code request}'s page token on, as one list. */
  public CompletableFuture<List<Resource>> listAll(ListRequest request) {
    return Pages.all(request, r -> list(r).thenApply(p -> new Pages.Page(p.getResourcesList(), p.getNextPageToken())),
        (r, token) -> r.toBuilder().setPageToken(token).build());
  }

  /** Every resource of {@code type} in {@code tenancy}, which may hold {@code *} wildcards. */
  public CompletableFuture<List<Resource>> listAll(Type type, Tenancy tenancy) {
    return listAll(ListRequest.newBuilder().setType(type).setTenancy(tenancy).build());
  }

  /**
   * Every direct child of one owner incarnation ({@code owner} must carry its uid), in order of
   * type, tenancy and name, fetched a page at a time (so not at one revision).
   */
  public CompletableFuture<List<Resource>> listByOwner(ID owner) {
    return Pages.all(ListByOwnerRequest.newBuilder().setOwner(owner).build(),
        r -> listByOwner(r).thenApply(p -> new Pages.Page(p.getResourcesList(), p.getNextPageToken())),
        (r, token) -> r.toBuilder().setPageToken(token).build());
  }

  /**
   * One page of an owner's children: at most {@code request.page_size} (0: the server's default)
   * after {@code request.page_token}, with the token of the next page (empty on the last).
   */
  public CompletableFuture<ListByOwnerResponse> listByOwner(ListByOwnerRequest request) {
    return rpc.unary(ResourceServiceGrpc.getListByOwnerMethod(), request, response -> response);
  }

  /** Deletes a resource. Deleting an absent resource succeeds. */
  public CompletableFuture<Void> delete(ID id) {
    return delete(id, "");
  }

  /** Deletes a resource if it is still at {@code version} ({@code ABORTED} otherwise). */
  public CompletableFuture<Void> delete(ID id, String version) {
    return delete(DeleteRequest.newBuilder().setId(id).setVersion(version).build());
  }

  /**
   * Deletes as {@code request} says, applied at most once for its request id (it gets one when it
   * has none): sent again after its answer was lost, it deletes nothing, so a resource created
   * since under the same name stays.
   */
  public CompletableFuture<Void> delete(DeleteRequest request) {
    DeleteRequest.Builder sent = request.toBuilder().setRequestId(requestId(request.getRequestId()));
    if (fenced() && !request.hasFence()) {
      sent.setFence(fence);
    }
    return rpc.unary(ResourceServiceGrpc.getDeleteMethod(), sent.build(), response -> null);
  }

  /** Runs the admission path (mutate, validate) and completes with the result, storing nothing. */
  public CompletableFuture<Resource> mutateAndValidate(Resource resource) {
    MutateAndValidateRequest request = MutateAndValidateRequest.newBuilder().setResource(resource).build();
    return rpc.unary(
        ResourceServiceGrpc.getMutateAndValidateMethod(), request, MutateAndValidateResponse::getResource);
  }

  /**
   * The types the server serves, with the descriptors of their data messages; see {@link
   * ResourceJson#of(ListTypesResponse)}.
   */
  public CompletableFuture<ListTypesResponse> types() {
    return rpc.unary(TypeServiceGrpc.getListTypesMethod(), ListTypesRequest.getDefaultInstance(), r -> r);
  }

  /**
   * Creates the first management token of an agent with ACLs on, and completes with its secret
   * (shown only this once). Needs no token; fails with {@code FAILED_PRECONDITION} once done.
   */
  public CompletableFuture<BootstrapResponse> bootstrapAcls() {
    return rpc.unary(AclServiceGrpc.getBootstrapMethod(), BootstrapRequest.getDefaultInstance(), r -> r);
  }

  /**
   * Creates a token with a new secret, returned only here; needs a token with {@code
   * operator:write}. The policies must exist.
   */
  public CompletableFuture<CreateTokenResponse> createToken(CreateTokenRequest request) {
    return rpc.unary(AclServiceGrpc.getCreateTokenMethod(), request, r -> r);
  }

  /**
   * The members of the agent's replicated store, as the agent knows them, and which one leads.
   * Needs {@code operator:read}; {@code FAILED_PRECONDITION} from an agent with the in-memory store.
   */
  public CompletableFuture<ListPeersResponse> raftPeers() {
    return rpc.unary(OperatorServiceGrpc.getListPeersMethod(), ListPeersRequest.getDefaultInstance(), r -> r);
  }

  /**
   * The agent's view of its cluster: members, leader, term and indexes, disk space and readiness
   * (what the UI's cluster page shows). Needs {@code operator:read}; works on any store.
   */
  public CompletableFuture<ClusterStatus> clusterStatus() {
    return rpc.unary(OperatorServiceGrpc.getGetClusterStatusMethod(), GetClusterStatusRequest.getDefaultInstance(), r -> r);
  }

  /**
   * Moves Raft leadership to the member {@code to} (empty: any other member) and completes with the
   * member that leads afterwards. Needs {@code operator:write}.
   */
  public CompletableFuture<String> transferRaftLeader(String to) {
    TransferLeaderRequest request = TransferLeaderRequest.newBuilder().setTo(to).build();
    return rpc.unary(OperatorServiceGrpc.getTransferLeaderMethod(), request, TransferLeaderResponse::getLeader);
  }

  /**
   * Adds the Raft member {@code name} at {@code raftAddress} (its {@code host:port} for Raft) and
   * completes with the members afterwards, once the cluster committed the change: the leader first
   * catches the new member up, by snapshot when it is far behind, so this may take minutes (it has
   * a deadline of its own, three minutes). The new member must be running and waiting to be added,
   * as {@code setpoint agent -join} starts it (which asks for this itself). Adding a member where
   * it is changes nothing. Needs {@code operator:write}; {@code ALREADY_EXISTS} when the name is a
   * member at another address.
   */
  public CompletableFuture<List<Peer>> addRaftPeer(String name, String raftAddress) {
    return addRaftPeer(AddPeerRequest.newBuilder().setName(name).setAddress(raftAddress).build());
  }

  /** {@link #addRaftPeer(String, String)} with every field of the request. */
  public CompletableFuture<List<Peer>> addRaftPeer(AddPeerRequest request) {
    return rpc.unary(OperatorServiceGrpc.getAddPeerMethod(), request, AddPeerResponse::getPeersList, MEMBERSHIP_DEADLINE);
  }

  /**
   * Removes the Raft member {@code name} (when it leads, leadership moves first) and completes with
   * the members afterwards, once the cluster committed the change. Stop the removed member's agent.
   * Needs {@code operator:write}; {@code NOT_FOUND} for an unknown member, {@code
   * FAILED_PRECONDITION} for the last one.
   */
  public CompletableFuture<List<Peer>> removeRaftPeer(String name) {
    RemovePeerRequest request = RemovePeerRequest.newBuilder().setName(name).build();
    return rpc.unary(OperatorServiceGrpc.getRemovePeerMethod(), request, RemovePeerResponse::getPeersList, MEMBERSHIP_DEADLINE);
  }

  /**
   * The controllers the agent runs, with their placement, whether each runs on this member, its
   * queue depth and why it fails, if it does. Needs {@code operator:read}.
   */
  public CompletableFuture<List<ControllerInfo>> controllers() {
    return rpc.unary(ControllerServiceGrpc.getListControllersMethod(), ListControllersRequest.getDefaultInstance(),
        ListControllersResponse::getControllersList);
  }

  /**
   * Queues the resource {@code id} for the agent's controller {@code controller} with a MANUAL
   * trigger, and completes once it is queued. Needs {@code operator:write}; {@code NOT_FOUND} for
   * an unknown controller, {@code FAILED_PRECONDITION} when it does not run on this member (a
   * SINGLETON controller runs on the Raft leader).
   */
  public CompletableFuture<Void> reconcile(String controller, ID id) {
    ReconcileRequest request = ReconcileRequest.newBuilder().setController(controller).setId(id).build();
    return rpc.unary(ControllerServiceGrpc.getReconcileMethod(), request, response -> null);
  }

  /**
   * The recent reconciles of the member asked, newest first: of {@code request}'s controller (or
   * all), and of its resource (those that reconciled it and those a change of it caused) or all.
   * Needs {@code operator:read}, or read on the resource asked about; {@code NOT_FOUND} for an
   * unknown controller.
   */
  public CompletableFuture<List<ReconcileInfo>> reconciles(ListReconcilesRequest request) {
    return rpc.unary(ControllerServiceGrpc.getListReconcilesMethod(), request, ListReconcilesResponse::getReconcilesList);
  }

  /**
   * Watches resources, handing each event to {@code listener}, one at a time and in order, on a
   * gRPC thread (do not block in it). The watch has no deadline. The returned future completes
   * when the server ends the stream: exceptionally with a {@link SetpointException} when the
   * stream fails, or with what the listener threw (which ends the watch). Cancel the future to
   * stop watching.
   */
  public CompletableFuture<Void> watch(WatchListRequest request, Consumer<? super WatchEvent> listener) {
    return rpc.serverStream(ResourceServiceGrpc.getWatchListMethod(), request, listener);
  }
}
