package io.setpoint.client;

import io.grpc.Channel;
import io.grpc.ClientInterceptors;
import io.grpc.ManagedChannel;
import io.opentelemetry.api.OpenTelemetry;
import io.setpoint.api.operator.v1.ClusterStatus;
import io.setpoint.api.operator.v1.ListPeersResponse;
import io.setpoint.api.operator.v1.Peer;
import io.setpoint.api.operator.v1.OperatorServiceGrpc;
import io.setpoint.api.operator.v1.SaveSnapshotRequest;
import io.setpoint.api.acl.v1.BootstrapResponse;
import io.setpoint.api.acl.v1.CreateTokenRequest;
import io.setpoint.api.acl.v1.CreateTokenResponse;
import io.setpoint.api.controller.v1.ControllerInfo;
import io.setpoint.api.controller.v1.ListReconcilesRequest;
import io.setpoint.api.controller.v1.ReconcileInfo;
import io.setpoint.api.v1.DeleteRequest;
import io.setpoint.api.v1.Fence;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.ListByOwnerRequest;
import io.setpoint.api.v1.ListByOwnerResponse;
import io.setpoint.api.v1.ListRequest;
import io.setpoint.api.v1.ListResponse;
import io.setpoint.api.v1.ListTypesResponse;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Status;
import io.setpoint.api.v1.Tenancy;
import io.setpoint.api.v1.Type;
import io.setpoint.api.v1.WatchListRequest;
import io.setpoint.api.v1.WriteRequest;
import io.setpoint.api.v1.WriteStatusRequest;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A client of a Setpoint server's resource service over gRPC.
 *
 * <pre>{@code
 * try (SetpointClient client = SetpointClient.connect("localhost:8500")) {
 *   Resource artist = client.write(Resource.newBuilder()
 *       .setId(Ids.of(DemoTypes.ARTIST, "miles"))
 *       .setData(Any.pack(Artist.newBuilder().setName("Miles Davis").build()))
 *       .build());
 *   client.async().read(artist.getId()).thenAccept(System.out::println);
 * }
 * }</pre>
 *
 * <p>Most methods block on their {@link AsyncSetpointClient} counterpart, which documents the call
 * in full. Every blocking method waits at most the client's {@linkplain Builder#deadline(Duration)
 * deadline} (watches have none), and reports failures as an unchecked {@link SetpointException}
 * carrying the gRPC code, the server's message and any field violations. An interrupt while
 * waiting cancels the call. A client is thread-safe and meant to be shared; {@link #close()} it
 * when done. docs/cli.md shows the client and the operator commands these calls serve.
 */
public final class SetpointClient implements AutoCloseable {
  /** The metadata key that carries the ACL token. */
  public static final String TOKEN_HEADER = "x-setpoint-token";

  private static final Duration DEFAULT_DEADLINE = Duration.ofSeconds(30);

  private final ManagedChannel channel;
  private final Rpc rpc;
  private final AsyncSetpointClient async;
  private final Fence fence;
  private final Consumer<? super Resource> stored;
  /** Whether closing this client shuts the channel down; a view shares its parent's. */
  private final boolean ownsChannel;

  /** A client that owns {@code channel}, writing unfenced and observing nothing. */
  private SetpointClient(ManagedChannel channel, Rpc rpc) {
    this(channel, rpc, Fence.getDefaultInstance(), IGNORED, true);
  }

  private SetpointClient(
      ManagedChannel channel, Rpc rpc, Fence fence, Consumer<? super Resource> stored, boolean ownsChannel) {
    this.channel = channel;
    this.rpc = rpc;
    this.async = new AsyncSetpointClient(rpc, fence, stored);
    this.fence = fence;
    this.stored = stored;
    this.ownsChannel = ownsChannel;
  }

  private static final Consumer<Resource> IGNORED = resource -> {};

  /**
   * A client of the server at {@code address} ({@code host:port}) with the default settings. Does
   * not connect yet: the first call does.
   *
   * @throws IllegalArgumentException when {@code address} is not {@code host:port}
   */
  public static SetpointClient connect(String address) {
    return builder().address(address).build();
  }

  /**
   * A client over a channel the caller built, such as an in-process one inside the agent.
   * Closing the client shuts the channel down.
   *
   * @param name how messages refer to the server, e.g. {@code in-process}
   */
  public static SetpointClient over(ManagedChannel channel, String name) {
    return new SetpointClient(channel, new Rpc(channel, name, DEFAULT_DEADLINE));
  }

  /** {@link #over(ManagedChannel, String)}, tracing every call as {@link Builder#openTelemetry} does. */
  public static SetpointClient over(ManagedChannel channel, String name, OpenTelemetry openTelemetry) {
    Channel traced = ClientInterceptors.intercept(channel, ClientTracing.of(openTelemetry));
    return new SetpointClient(channel, new Rpc(traced, name, DEFAULT_DEADLINE));
  }

  /** Starts configuring a client. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * This client, sending {@code fence} with every write, status write and delete: the server
   * applies them only while the fence's lease is held by its holder at its epoch, atomically with
   * the write, and refuses them otherwise with {@code FAILED_PRECONDITION}, so that a controller
   * manager that lost its leader election cannot write when it resumes (docs/controllers.md). The
   * view shares this client's connection; closing it does nothing.
   */
  public SetpointClient fenced(Fence fence) {
    return new SetpointClient(channel, rpc, fence, stored, false);
  }

  /**
   * This client, calling {@code stored} with every resource a write, create or status write made
   * through it stored, before the call returns (on the thread that completes it: keep it quick).
   * A controller manager uses it so that a reconciler's next run sees its own writes. The view
   * shares this client's connection; closing it does nothing.
   */
  public SetpointClient observingWrites(Consumer<? super Resource> stored) {
    return new SetpointClient(channel, rpc, fence, Objects.requireNonNull(stored, "stored"), false);
  }

  /** The fence this client writes with; the empty fence when it writes unfenced. */
  public Fence fence() {
    return fence;
  }

  /** The {@code host:port} this client talks to. */
  public String address() {
    return rpc.address();
  }

  /** The same client, with methods that return futures instead of blocking. */
  public AsyncSetpointClient async() {
    return async;
  }

  /** Reads a resource, eventually consistent (monotonic per server). */
  public Resource read(ID id) {
    return Rpc.await(async.read(id));
  }

  /** Reads a resource with a linearizable read. */
  public Resource readConsistent(ID id) {
    return Rpc.await(async.readConsistent(id));
  }

  /**
   * Reads a resource with a linearizable read; empty when nothing is stored under {@code id}
   * (where {@link #readConsistent} fails with {@code NOT_FOUND}).
   */
  public Optional<Resource> findConsistent(ID id) {
    try {
      return Optional.of(readConsistent(id));
    } catch (SetpointException e) {
      if (e.isNotFound()) {
        return Optional.empty();
      }
      throw e;
    }
  }

  /** Creates or updates a resource; see {@link AsyncSetpointClient#write(Resource)}. */
  public Resource write(Resource resource) {
    return Rpc.await(async.write(resource));
  }

  /** Writes as {@code request} says; see {@link AsyncSetpointClient#write(WriteRequest)}. */
  public Resource write(WriteRequest request) {
    return Rpc.await(async.write(request));
  }

  /** Creates a resource if its name is free; see {@link AsyncSetpointClient#create(Resource)}. */
  public Resource create(Resource resource) {
    return Rpc.await(async.create(resource));
  }

  /** Replaces a status entry; see {@link AsyncSetpointClient#writeStatus(ID, String, Status)}. */
  public Resource writeStatus(ID id, String key, Status status) {
    return Rpc.await(async.writeStatus(id, key, status));
  }

  /** Like {@link #writeStatus(ID, String, Status)}, if the resource is still at {@code version}. */
  public Resource writeStatus(ID id, String key, Status status, String version) {
    return Rpc.await(async.writeStatus(id, key, status, version));
  }

  /** Writes a status entry; see {@link AsyncSetpointClient#writeStatus(WriteStatusRequest)}. */
  public Resource writeStatus(WriteStatusRequest request) {
    return Rpc.await(async.writeStatus(request));
  }

  /** One page of a listing; see {@link AsyncSetpointClient#list(ListRequest)}. */
  public ListResponse list(ListRequest request) {
    return Rpc.await(async.list(request));
  }

  /** Every page of a listing, from {@code request}'s page token on, as one list. */
  public List<Resource> listAll(ListRequest request) {
    return Rpc.await(async.listAll(request));
  }

  /** Every resource of {@code type} in {@code tenancy}, which may hold {@code *} wildcards. */
  public List<Resource> listAll(Type type, Tenancy tenancy) {
    return Rpc.await(async.listAll(type, tenancy));
  }

  /** Every direct child of an owner; see {@link AsyncSetpointClient#listByOwner(ID)}. */
  public List<Resource> listByOwner(ID owner) {
    return Rpc.await(async.listByOwner(owner));
  }

  /** One page of an owner's children; see {@link AsyncSetpointClient#listByOwner(ListByOwnerRequest)}. */
  public ListByOwnerResponse listByOwner(ListByOwnerRequest request) {
    return Rpc.await(async.listByOwner(request));
  }

  /** Deletes a resource. Deleting an absent resource succeeds. */
  public void delete(ID id) {
    Rpc.await(async.delete(id));
  }

  /** Deletes a resource if it is still at {@code version} ({@code ABORTED} otherwise). */
  public void delete(ID id, String version) {
    Rpc.await(async.delete(id, version));
  }

  /** Deletes as {@code request} says; see {@link AsyncSetpointClient#delete(DeleteRequest)}. */
  public void delete(DeleteRequest request) {
    Rpc.await(async.delete(request));
  }

  /** Runs the admission path (mutate, validate) and returns the result, storing nothing. */
  public Resource mutateAndValidate(Resource resource) {
    return Rpc.await(async.mutateAndValidate(resource));
  }

  /**
   * Starts watching resources. Read the events from the returned {@link Watch} and close it when
   * done. Failures to connect surface on the first {@link Watch#hasNext()}.
   */
  public Watch watch(WatchListRequest request) {
    return new Watch(rpc, request);
  }

  /** The types the server serves; see {@link AsyncSetpointClient#types()}. */
  public ListTypesResponse types() {
    return Rpc.await(async.types());
  }

  /** The Raft members and their leader; see {@link AsyncSetpointClient#raftPeers()}. */
  public ListPeersResponse raftPeers() {
    return Rpc.await(async.raftPeers());
  }

  /** The agent's view of its cluster; see {@link AsyncSetpointClient#clusterStatus()}. */
  public ClusterStatus clusterStatus() {
    return Rpc.await(async.clusterStatus());
  }

  /**
   * Saves a consistent copy of the agent's store to {@code out} as a snapshot file (the format of
   * {@code setpoint snapshot save}; its last bytes are the checksum of the rest), streamed as the
   * agent sends it, without the client's deadline. Needs {@code operator:write}. {@code out} is not
   * closed; if this fails, what it received is incomplete.
   *
   * @throws UncheckedIOException when writing to {@code out} fails (the call is cancelled)
   */
  public void saveSnapshot(OutputStream out) {
    Objects.requireNonNull(out, "out");
    Rpc.await(rpc.serverStream(OperatorServiceGrpc.getSaveSnapshotMethod(), SaveSnapshotRequest.getDefaultInstance(),
        chunk -> {
          try {
            chunk.getData().writeTo(out);
          } catch (IOException e) {
            throw new UncheckedIOException("writing the snapshot failed: " + e.getMessage(), e);
          }
        }));
  }

  /** Moves Raft leadership; see {@link AsyncSetpointClient#transferRaftLeader(String)}. */
  public String transferRaftLeader(String to) {
    return Rpc.await(async.transferRaftLeader(to));
  }

  /** Adds a Raft member; see {@link AsyncSetpointClient#addRaftPeer(String, String)}. */
  public List<Peer> addRaftPeer(String name, String raftAddress) {
    return Rpc.await(async.addRaftPeer(name, raftAddress));
  }

  /** Removes a Raft member; see {@link AsyncSetpointClient#removeRaftPeer(String)}. */
  public List<Peer> removeRaftPeer(String name) {
    return Rpc.await(async.removeRaftPeer(name));
  }

  /** The agent's controllers and how each is doing; see {@link AsyncSetpointClient#controllers()}. */
  public List<ControllerInfo> controllers() {
    return Rpc.await(async.controllers());
  }

  /** Queues a reconcile of {@code id}; see {@link AsyncSetpointClient#reconcile(String, ID)}. */
  public void reconcile(String controller, ID id) {
    Rpc.await(async.reconcile(controller, id));
  }

  /** Recent reconciles; see {@link AsyncSetpointClient#reconciles(ListReconcilesRequest)}. */
  public List<ReconcileInfo> reconciles(ListReconcilesRequest request) {
    return Rpc.await(async.reconciles(request));
  }

  /** Creates an agent's first management token; see {@link AsyncSetpointClient#bootstrapAcls()}. */
  public BootstrapResponse bootstrapAcls() {
    return Rpc.await(async.bootstrapAcls());
  }

  /** Creates a token; see {@link AsyncSetpointClient#createToken(CreateTokenRequest)}. */
  public CreateTokenResponse createToken(CreateTokenRequest request) {
    return Rpc.await(async.createToken(request));
  }

  /**
   * Closes the connection, cancelling calls and watches still in flight. Idempotent. Closing a
   * {@link #fenced} view does nothing.
   */
  @Override
  public void close() {
    if (!ownsChannel) {
      return;
    }
    channel.shutdownNow();
    try {
      channel.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Configures a {@link SetpointClient}. */
  public static final class Builder {
    private String address = "localhost:8500";
    private String token;
    private Duration deadline = DEFAULT_DEADLINE;
    private OpenTelemetry openTelemetry;
    private Path trustedCa;
    private Path clientCertificate;
    private Path clientKey;

    private Builder() {}

    /**
     * The agent's {@code host:port} (default {@code localhost:8500}); IPv6 hosts in brackets. A
     * leading {@code https://} means TLS (trusting the JVM's CAs unless {@link #tls(Path)} names
     * one); {@code http://} means plaintext, like no scheme.
     *
     * <p>Several agents, comma-separated ({@code n1:8500,n2:8500,n3:8500}, all with the same scheme):
     * the client talks to the first it can reach and moves to the next when that one stops or
     * cannot be reached. Calls that only read (reads and listings) are tried again, up to four times
     * in all, when they fail with {@code UNAVAILABLE}, on one address or several; writes only when
     * they never reached an agent, as one that failed on the way may have been applied.
     */
    public Builder address(String address) {
      this.address = Objects.requireNonNull(address, "address");
      return this;
    }

    /** The ACL token sent with every call as {@code x-setpoint-token}; null or empty for none. */
    public Builder token(String token) {
      this.token = token;
      return this;
    }

    /**
     * Talk TLS, trusting the server's certificate only if the CA in {@code caPem} (PEM, one or more
     * certificates) signed it. Null: plaintext, unless the address starts with {@code https://} or
     * a {@link #clientCertificate client certificate} is set (then the JVM's CAs are trusted).
     */
    public Builder tls(Path caPem) {
      this.trustedCa = caPem;
      return this;
    }

    /**
     * For mutual TLS: present the certificate (chain) in {@code certPem} with the private key in
     * {@code keyPem} to the server. Implies TLS. Both null: no client certificate.
     */
    public Builder clientCertificate(Path certPem, Path keyPem) {
      if ((certPem == null) != (keyPem == null)) {
        throw new IllegalArgumentException("a client certificate needs both its certificate and its key file");
      }
      this.clientCertificate = certPem;
      this.clientKey = keyPem;
      return this;
    }

    /**
     * Traces every call with {@code openTelemetry}: a {@code CLIENT} span per call, named by its
     * gRPC method, and the trace context sent to the server. Default: no tracing.
     */
    public Builder openTelemetry(OpenTelemetry openTelemetry) {
      this.openTelemetry = Objects.requireNonNull(openTelemetry, "openTelemetry");
      return this;
    }

    /** How long a unary call may take (default 30 seconds). Watches have no deadline. */
    public Builder deadline(Duration deadline) {
      if (deadline.isNegative() || deadline.isZero()) {
        throw new IllegalArgumentException("deadline must be positive, was " + deadline);
      }
      this.deadline = deadline;
      return this;
    }

    /**
     * Creates the client; it connects on its first call.
     *
     * @throws IllegalArgumentException when the address is not {@code host:port}, or a TLS file
     *     cannot be used (the message names it)
     */
    public SetpointClient build() {
      ClientChannel dialed = ClientChannel.dial(address, token, trustedCa, clientCertificate, clientKey, openTelemetry);
      return new SetpointClient(dialed.channel(), new Rpc(dialed.calls(), address, deadline));
    }
  }
}
