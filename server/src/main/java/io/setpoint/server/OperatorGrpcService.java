package io.setpoint.server;

import com.linecorp.armeria.server.annotation.Blocking;
import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.setpoint.api.operator.v1.AddPeerRequest;
import io.setpoint.api.operator.v1.AddPeerResponse;
import io.setpoint.api.operator.v1.ClusterStatus;
import io.setpoint.api.operator.v1.GetClusterStatusRequest;
import io.setpoint.api.operator.v1.ListPeersRequest;
import io.setpoint.api.operator.v1.ListPeersResponse;
import io.setpoint.api.operator.v1.OperatorServiceGrpc;
import io.setpoint.api.operator.v1.Peer;
import io.setpoint.api.operator.v1.RemovePeerRequest;
import io.setpoint.api.operator.v1.RemovePeerResponse;
import io.setpoint.api.operator.v1.SaveSnapshotRequest;
import io.setpoint.api.operator.v1.SnapshotChunk;
import io.setpoint.api.operator.v1.TransferLeaderRequest;
import io.setpoint.api.operator.v1.TransferLeaderResponse;
import io.setpoint.api.v1.Tenancy;
import io.setpoint.api.v1.Type;
import io.setpoint.resource.AclHooks.Authorizer;
import io.setpoint.resource.AclHooks.Permission;
import io.setpoint.resource.ValidationException;
import io.setpoint.storage.Backend;
import io.setpoint.storage.BackupFile;
import io.setpoint.storage.Replication;
import io.setpoint.storage.StoreSnapshot;
import io.setpoint.storage.raft.RaftConfig;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operator API: the cluster's status ({@link ClusterReport}), the store's Raft members and moving leadership, over its {@link Replication}
 * (without it, on the in-memory store, those calls fail with {@code FAILED_PRECONDITION}); and a
 * backup of the store, on any store.
 */
@Blocking
final class OperatorGrpcService extends OperatorServiceGrpc.OperatorServiceImplBase {
  private static final Logger log = LoggerFactory.getLogger(OperatorGrpcService.class);
  private static final Duration TRANSFER_TIMEOUT = Duration.ofSeconds(10);
  /** A new member may need a snapshot of the whole store before it counts. */
  private static final Duration MEMBERSHIP_TIMEOUT = Duration.ofMinutes(2);
  private static final Pattern NODE_NAME = Pattern.compile("[A-Za-z0-9._-]{1,63}");

  private final Backend store;
  private final Replication replication; // null: not replicated
  private final Clock clock;
  private final ClusterReport report;
  /** One save at a time: each walks the whole store, on a thread of its own. */
  private final AtomicBoolean saving = new AtomicBoolean();

  /**
   * Serves {@code store}; its Raft calls are refused when {@code replication} is null, and {@code
   * report} answers GetClusterStatus on any store.
   */
  public OperatorGrpcService(Backend store, Replication replication, Clock clock, ClusterReport report) {
    this.store = store;
    this.replication = replication;
    this.clock = clock;
    this.report = report;
  }

  @Override
  public void getClusterStatus(GetClusterStatusRequest request, StreamObserver<ClusterStatus> out) {
    UnaryCalls.answer(() -> {
      CallerAuthorizer.current().require(
          Permission.OPERATOR_READ, Type.getDefaultInstance(), Tenancy.getDefaultInstance(), "");
      return report.status();
    }, out);
  }

  /**
   * Copies the store at one revision and streams it as a snapshot file, its checksum last. The
   * file is written on a thread of its own as the client reads it ({@link SnapshotStream}).
   */
  @Override
  public void saveSnapshot(SaveSnapshotRequest request, StreamObserver<SnapshotChunk> out) {
    try {
      // Every resource of every type is in it: as much as a management token may read.
      CallerAuthorizer.current().require(Permission.OPERATOR_WRITE, Type.getDefaultInstance(), Tenancy.getDefaultInstance(), "");
      if (!saving.compareAndSet(false, true)) {
        throw Status.RESOURCE_EXHAUSTED.withDescription("a snapshot is being saved from this member already; try again"
            + " when it is done").asRuntimeException();
      }
    } catch (RuntimeException e) {
      out.onError(Errors.toStatus(e));
      return;
    }
    SnapshotStream stream = new SnapshotStream((ServerCallStreamObserver<SnapshotChunk>) out, () -> saving.set(false));
    Thread.ofVirtual().name("setpoint-snapshot-save").start(() -> save(stream));
  }

  private void save(SnapshotStream stream) {
    try {
      StoreSnapshot snapshot = store.snapshot();
      log.info("sending a snapshot of {} resources at revision {}", snapshot.size(), snapshot.revision());
      BackupFile.write(stream, snapshot, replication == null ? "memory" : replication.nodeName(), clock.instant());
      stream.finish();
    } catch (IOException | RuntimeException e) {
      // A client that went away ended the call already; this then changes nothing.
      stream.fail(Errors.toStatus(e).getStatus());
    }
  }

  @Override
  public void listPeers(ListPeersRequest request, StreamObserver<ListPeersResponse> out) {
    answer(out, Permission.OPERATOR_READ, () -> ListPeersResponse.newBuilder()
        .setAnsweredBy(replication.nodeName())
        .addAllPeers(peers(replication.members()))
        .build());
  }

  @Override
  public void addPeer(AddPeerRequest request, StreamObserver<AddPeerResponse> out) {
    answer(out, Permission.OPERATOR_WRITE, () -> {
      checkName(request.getName());
      checkAddress(request.getAddress());
      try {
        List<Replication.Member> after = replication.addMember(
            request.getName(), request.getAddress(), request.getLostItsData(), MEMBERSHIP_TIMEOUT);
        log.info("member {} at {} added", request.getName(), request.getAddress());
        return AddPeerResponse.newBuilder().addAllPeers(peers(after)).build();
      } catch (IllegalArgumentException e) {
        throw Status.ALREADY_EXISTS.withDescription(Errors.bounded(e.getMessage())).asRuntimeException();
      }
    });
  }

  @Override
  public void removePeer(RemovePeerRequest request, StreamObserver<RemovePeerResponse> out) {
    answer(out, Permission.OPERATOR_WRITE, () -> {
      checkName(request.getName());
      try {
        List<Replication.Member> after = replication.removeMember(request.getName(), MEMBERSHIP_TIMEOUT);
        log.info("member {} removed", request.getName());
        return RemovePeerResponse.newBuilder().addAllPeers(peers(after)).build();
      } catch (IllegalArgumentException e) {
        throw Status.FAILED_PRECONDITION.withDescription(Errors.bounded(e.getMessage())).asRuntimeException();
      }
    });
  }

  private List<Peer> peers(List<Replication.Member> members) {
    return ClusterReport.peers(members, replication.status().commitIndex());
  }

  private static void checkName(String name) {
    if (!NODE_NAME.matcher(name).matches()) {
      throw ValidationException.of("name", "node-name",
          "name must be 1 to 63 letters, digits, '.', '_' or '-' (a member's -node), was \"" + Errors.bounded(name) + "\"");
    }
  }

  private static void checkAddress(String address) {
    if (!RaftConfig.isPeerAddress(address)) {
      throw ValidationException.of("address", "host-port",
          "address must be the member's Raft address HOST:PORT with a port within 1..65535, was \""
              + Errors.bounded(address) + "\"");
    }
  }

  @Override
  public void transferLeader(TransferLeaderRequest request, StreamObserver<TransferLeaderResponse> out) {
    answer(out, Permission.OPERATOR_WRITE, () -> TransferLeaderResponse.newBuilder()
        .setLeader(replication.transferLeadership(request.getTo(), TRANSFER_TIMEOUT))
        .build());
  }

  private <T> void answer(StreamObserver<T> out, Permission needed, Supplier<T> call) {
    UnaryCalls.answer(() -> {
      Authorizer caller = CallerAuthorizer.current();
      caller.require(needed, Type.getDefaultInstance(), Tenancy.getDefaultInstance(), "");
      if (replication == null) {
        throw Status.FAILED_PRECONDITION
            .withDescription("this agent runs the in-memory store (-dev), which has no Raft peers")
            .asRuntimeException();
      }
      return call.get();
    }, out);
  }
}
