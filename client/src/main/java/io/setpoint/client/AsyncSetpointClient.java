package io.setpoint.client;

import io.setpoint.api.operator.v1.AddPeerRequest;
import io.setpoint.api.operator.v1.AddPeerResponse;
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
 * <p>The methods mean exactly what their blocking counterparts on {@link SetpointClient} mean.
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

  /** Reads a resource (eventually consistent). */
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

  /** Creates or updates a resource; see {@link SetpointClient#write(Resource)}. */
  public CompletableFuture<Resource> write(Resource resource) {
    return write(WriteRequest.newBuilder().setResource(resource).build());
  }

  /** Creates a resource only if its name is free; see {@link SetpointClient#create(Resource)}. */
  public CompletableFuture<Resource> create(Resource resource) {
    return write(WriteRequest.newBuilder().setResource(resource).setCreateOnly(true).build());
  }

  /**
   * Writes as {@code request} says; see {@link SetpointClient#write(WriteRequest)}. Without a
   * request id it gets a new one, so that the channel may send it again when its agent fails it
   * with {@code UNAVAILABLE} ({@link CallRetries}): the store applies it at most once.
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

  /** Replaces one status entry; see {@link SetpointClient#writeStatus(ID, String, Status)}. */
  public CompletableFuture<Resource> writeStatus(ID id, String key, Status status) {
    return writeStatus(id, key, status, "");
  }

  /** Replaces one status entry if the resource is still at {@code version}. */
  public CompletableFuture<Resource> writeStatus(ID id, String key, Status status, String version) {
    return writeStatus(WriteStatusRequest.newBuilder().setId(id).setKey(key).setStatus(status).setVersion(version).build());
  }

  /** Writes one status entry as {@code request} says; see {@link SetpointClient#writeStatus(WriteStatusRequest)}. */
  public CompletableFuture<Resource> writeStatus(WriteStatusRequest request) {
    WriteStatusRequest.Builder sent = request.toBuilder().setRequestId(requestId(request.getRequestId()));
    if (fenced() && !request.hasFence()) {
      sent.setFence(fence);
    }
    return rpc.unary(ResourceServiceGrpc.getWriteStatusMethod(), sent.build(), response -> stored(response.getResource()));
  }

  /** One page of a listing; see {@link SetpointClient#list(ListRequest)}. */
  public CompletableFuture<ListResponse> list(ListRequest request) {
    return rpc.unary(ResourceServiceGrpc.getListMethod(), request, response -> response);
  }

  /** Every page of a listing, from {@code request}'s page token on, as one list. */
  public CompletableFuture<List<Resource>> listAll(ListRequest request) {
    return Pages.all(request, r -> list(r).thenApply(p -> new Pages.Page(p.getResourcesList(), p.getNextPageToken())),
        (r, token) -> r.toBuilder().setPageToken(token).build());
  }

  /** Every resource of {@code type} in {@code tenancy} (which may hold wildcards). */
  public CompletableFuture<List<Resource>> listAll(Type type, Tenancy tenancy) {
    return listAll(ListRequest.newBuilder().setType(type).setTenancy(tenancy).build());
  }

  /**
   * Every direct child of one owner incarnation ({@code owner} must carry its uid), page after
   * page; see {@link SetpointClient#listByOwner(ID)}.
   */
  public CompletableFuture<List<Resource>> listByOwner(ID owner) {
    return Pages.all(ListByOwnerRequest.newBuilder().setOwner(owner).build(),
        r -> listByOwner(r).thenApply(p -> new Pages.Page(p.getResourcesList(), p.getNextPageToken())),
        (r, token) -> r.toBuilder().setPageToken(token).build());
  }

  /** One page of an owner's children; see {@link SetpointClient#listByOwner(ListByOwnerRequest)}. */
  public CompletableFuture<ListByOwnerResponse> listByOwner(ListByOwnerRequest request) {
    return rpc.unary(ResourceServiceGrpc.getListByOwnerMethod(), request, response -> response);
  }

  /** Deletes a resource (absent is success). */
  public CompletableFuture<Void> delete(ID id) {
    return delete(id, "");
  }

  /** Deletes a resource if it is still at {@code version}. */
  public CompletableFuture<Void> delete(ID id, String version) {
    return delete(DeleteRequest.newBuilder().setId(id).setVersion(version).build());
  }

  /** Deletes as {@code request} says; see {@link SetpointClient#delete(DeleteRequest)}. */
  public CompletableFuture<Void> delete(DeleteRequest request) {
    DeleteRequest.Builder sent = request.toBuilder().setRequestId(requestId(request.getRequestId()));
    if (fenced() && !request.hasFence()) {
      sent.setFence(fence);
    }
    return rpc.unary(ResourceServiceGrpc.getDeleteMethod(), sent.build(), response -> null);
  }

  /** Runs the admission path (mutate, validate) without storing anything. */
  public CompletableFuture<Resource> mutateAndValidate(Resource resource) {
    MutateAndValidateRequest request = MutateAndValidateRequest.newBuilder().setResource(resource).build();
    return rpc.unary(
        ResourceServiceGrpc.getMutateAndValidateMethod(), request, MutateAndValidateResponse::getResource);
  }

  /** The types the server serves, with the descriptors of their data messages. */
  public CompletableFuture<ListTypesResponse> types() {
    return rpc.unary(TypeServiceGrpc.getListTypesMethod(), ListTypesRequest.getDefaultInstance(), r -> r);
  }

  /** Creates the first management token of an agent with ACLs on; works once per cluster. */
  public CompletableFuture<BootstrapResponse> bootstrapAcls() {
    return rpc.unary(AclServiceGrpc.getBootstrapMethod(), BootstrapRequest.getDefaultInstance(), r -> r);
  }

  /** Creates a token with a new secret (needs operator:write). */
  public CompletableFuture<CreateTokenResponse> createToken(CreateTokenRequest request) {
    return rpc.unary(AclServiceGrpc.getCreateTokenMethod(), request, r -> r);
  }

  /** The store's Raft members; see {@link SetpointClient#raftPeers()}. */
  public CompletableFuture<ListPeersResponse> raftPeers() {
    return rpc.unary(OperatorServiceGrpc.getListPeersMethod(), ListPeersRequest.getDefaultInstance(), r -> r);
  }

  /** Moves Raft leadership; see {@link SetpointClient#transferRaftLeader(String)}. */
  public CompletableFuture<String> transferRaftLeader(String to) {
    TransferLeaderRequest request = TransferLeaderRequest.newBuilder().setTo(to).build();
    return rpc.unary(OperatorServiceGrpc.getTransferLeaderMethod(), request, TransferLeaderResponse::getLeader);
  }

  /** Adds a Raft member; see {@link SetpointClient#addRaftPeer(String, String)}. */
  public CompletableFuture<List<Peer>> addRaftPeer(String name, String raftAddress) {
    return addRaftPeer(AddPeerRequest.newBuilder().setName(name).setAddress(raftAddress).build());
  }

  /** {@link #addRaftPeer(String, String)} with every field of the request. */
  public CompletableFuture<List<Peer>> addRaftPeer(AddPeerRequest request) {
    return rpc.unary(OperatorServiceGrpc.getAddPeerMethod(), request, AddPeerResponse::getPeersList, MEMBERSHIP_DEADLINE);
  }

  /** Removes a Raft member; see {@link SetpointClient#removeRaftPeer(String)}. */
  public CompletableFuture<List<Peer>> removeRaftPeer(String name) {
    RemovePeerRequest request = RemovePeerRequest.newBuilder().setName(name).build();
    return rpc.unary(OperatorServiceGrpc.getRemovePeerMethod(), request, RemovePeerResponse::getPeersList, MEMBERSHIP_DEADLINE);
  }

  /** The agent's controllers; see {@link SetpointClient#controllers()}. */
  public CompletableFuture<List<ControllerInfo>> controllers() {
    return rpc.unary(ControllerServiceGrpc.getListControllersMethod(), ListControllersRequest.getDefaultInstance(),
        ListControllersResponse::getControllersList);
  }

  /** Queues a reconcile; see {@link SetpointClient#reconcile(String, ID)}. */
  public CompletableFuture<Void> reconcile(String controller, ID id) {
    ReconcileRequest request = ReconcileRequest.newBuilder().setController(controller).setId(id).build();
    return rpc.unary(ControllerServiceGrpc.getReconcileMethod(), request, response -> null);
  }

  /** Recent reconciles; see {@link SetpointClient#reconciles(ListReconcilesRequest)}. */
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
