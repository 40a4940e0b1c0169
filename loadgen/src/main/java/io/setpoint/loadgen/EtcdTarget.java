package io.setpoint.loadgen;

import com.google.protobuf.ByteString;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.setpoint.loadgen.etcd.Compare;
import io.setpoint.loadgen.etcd.KVGrpc;
import io.setpoint.loadgen.etcd.KVGrpc.KVBlockingStub;
import io.setpoint.loadgen.etcd.MaintenanceGrpc;
import io.setpoint.loadgen.etcd.MaintenanceGrpc.MaintenanceBlockingStub;
import io.setpoint.loadgen.etcd.MoveLeaderRequest;
import io.setpoint.loadgen.etcd.PutRequest;
import io.setpoint.loadgen.etcd.RangeRequest;
import io.setpoint.loadgen.etcd.RangeResponse;
import io.setpoint.loadgen.etcd.RequestOp;
import io.setpoint.loadgen.etcd.StatusRequest;
import io.setpoint.loadgen.etcd.StatusResponse;
import io.setpoint.loadgen.etcd.TxnRequest;
import io.setpoint.loadgen.etcd.TxnResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;

/**
 * etcd's v3 KV service, through the wire-compatible subset in {@code etcd/rpc.proto}: each key is
 * {@code /setpoint-bench/<key>} with a {@value Target#PAYLOAD_BYTES}-byte value. A put is a Put, a
 * CAS a Txn whose one compare is {@code mod_revision(key) == expected} and whose success branch is
 * the Put, and a version read a linearizable Range. Versions are mod revisions.
 */
public final class EtcdTarget implements Target {
  static final String PREFIX = "/setpoint-bench/";

  private final List<ManagedChannel> channels;
  private final List<KVBlockingStub> stubs = new ArrayList<>();
  private final List<MaintenanceBlockingStub> maintenance = new ArrayList<>();
  private final long deadlineMillis;

  private EtcdTarget(List<String> endpoints, long deadlineMillis) {
    this.channels = Channels.open(endpoints);
    this.deadlineMillis = deadlineMillis;
    for (ManagedChannel channel : channels) {
      stubs.add(KVGrpc.newBlockingStub(channel));
      maintenance.add(MaintenanceGrpc.newBlockingStub(channel));
    }
  }

  /** A target over etcd members at {@code endpoints} ({@code host:port} of their client URLs). */
  public static EtcdTarget connect(List<String> endpoints, long deadlineMillis) {
    return new EtcdTarget(endpoints, deadlineMillis);
  }

  @Override
  public String system() {
    return "etcd";
  }

  @Override
  public int endpoints() {
    return stubs.size();
  }

  @Override
  public OptionalInt leaderEndpoint() {
    for (int i = 0; i < maintenance.size(); i++) {
      try {
        StatusResponse status = maintenance.get(i).withDeadlineAfter(deadlineMillis, TimeUnit.MILLISECONDS)
            .status(StatusRequest.getDefaultInstance());
        if (status.getLeader() != 0 && status.getLeader() == status.getHeader().getMemberId()) {
          return OptionalInt.of(i);
        }
      } catch (StatusRuntimeException e) {
        // This member cannot say now; ask the next.
      }
    }
    return OptionalInt.empty();
  }

  @Override
  public void moveLeader(int endpoint, Duration timeout) throws InterruptedException {
    OptionalInt leader = leaderEndpoint();
    if (leader.isPresent() && leader.getAsInt() != endpoint) {
      long target = maintenance.get(endpoint).withDeadlineAfter(deadlineMillis, TimeUnit.MILLISECONDS)
          .status(StatusRequest.getDefaultInstance()).getHeader().getMemberId();
      // etcd moves leadership only when the leader is asked.
      maintenance.get(leader.getAsInt()).withDeadlineAfter(timeout.toMillis(), TimeUnit.MILLISECONDS)
          .moveLeader(MoveLeaderRequest.newBuilder().setTargetID(target).build());
    }
    WriteLoad.awaitLeader(this, endpoint, timeout);
  }

  @Override
  public Writer writer(int client) {
    KVBlockingStub stub = stubs.get(Math.floorMod(client, stubs.size()));
    return new Writer() {
      @Override
      public long put(String key, long seq) {
        return call(stub).put(putRequest(key, seq)).getHeader().getRevision();
      }

      @Override
      public long cas(String key, long expected, long seq) {
        TxnResponse response = call(stub).txn(TxnRequest.newBuilder()
            .addCompare(Compare.newBuilder()
                .setKey(key(key))
                .setTarget(Compare.CompareTarget.MOD)
                .setResult(Compare.CompareResult.EQUAL)
                .setModRevision(expected))
            .addSuccess(RequestOp.newBuilder().setRequestPut(putRequest(key, seq)))
            .build());
        return response.getSucceeded() ? response.getHeader().getRevision() : CONFLICT;
      }

      @Override
      public long version(String key) {
        RangeResponse response = call(stub).range(RangeRequest.newBuilder().setKey(key(key)).build());
        return response.getKvsCount() == 0 ? 0 : response.getKvs(0).getModRevision();
      }
    };
  }

  private KVBlockingStub call(KVBlockingStub stub) {
    return stub.withDeadlineAfter(deadlineMillis, TimeUnit.MILLISECONDS);
  }

  private static PutRequest putRequest(String key, long seq) {
    return PutRequest.newBuilder()
        .setKey(key(key))
        .setValue(ByteString.copyFrom(Payloads.bytes(seq, PAYLOAD_BYTES)))
        .build();
  }

  private static ByteString key(String key) {
    return ByteString.copyFrom(PREFIX + key, StandardCharsets.US_ASCII);
  }

  @Override
  public void close() {
    Channels.close(channels);
  }
}
