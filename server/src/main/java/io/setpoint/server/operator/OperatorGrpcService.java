package io.setpoint.server.operator;

import com.linecorp.armeria.server.annotation.Blocking;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.setpoint.api.operator.v1.ListPeersRequest;
import io.setpoint.api.operator.v1.ListPeersResponse;
import io.setpoint.api.operator.v1.OperatorServiceGrpc;
import io.setpoint.api.operator.v1.Peer;
import io.setpoint.api.operator.v1.TransferLeaderRequest;
import io.setpoint.api.operator.v1.TransferLeaderResponse;
import io.setpoint.api.v1.Tenancy;
import io.setpoint.api.v1.Type;
import io.setpoint.resource.Authorizer;
import io.setpoint.resource.Permission;
import io.setpoint.server.service.CallerAuthorizer;
import io.setpoint.server.service.UnaryCalls;
import io.setpoint.storage.Replication;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * The operator API over the store's {@link Replication}: its Raft members, and moving leadership.
 * Without replication (the in-memory store) both calls fail with {@code FAILED_PRECONDITION}.
 */
@Blocking
public final class OperatorGrpcService extends OperatorServiceGrpc.OperatorServiceImplBase {
  private static final Duration TRANSFER_TIMEOUT = Duration.ofSeconds(10);

  private final Replication replication; // null: not replicated

  /** Serves {@code replication}, or refuses every call when it is null. */
  public OperatorGrpcService(Replication replication) {
    this.replication = replication;
  }

  @Override
  public void listPeers(ListPeersRequest request, StreamObserver<ListPeersResponse> out) {
    answer(out, Permission.OPERATOR_READ, () -> {
      ListPeersResponse.Builder response = ListPeersResponse.newBuilder().setAnsweredBy(replication.nodeName());
      for (Replication.Member m : replication.members()) {
        response.addPeers(Peer.newBuilder().setName(m.name()).setAddress(m.address()).setLeader(m.leader()));
      }
      return response.build();
    });
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
