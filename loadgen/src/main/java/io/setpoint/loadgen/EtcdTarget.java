package io.setpoint.loadgen;

import com.google.protobuf.ByteString;
import io.grpc.ManagedChannel;
import io.setpoint.loadgen.etcd.Compare;
import io.setpoint.loadgen.etcd.KVGrpc;
import io.setpoint.loadgen.etcd.KVGrpc.KVBlockingStub;
import io.setpoint.loadgen.etcd.PutRequest;
import io.setpoint.loadgen.etcd.RangeRequest;
import io.setpoint.loadgen.etcd.RangeResponse;
import io.setpoint.loadgen.etcd.RequestOp;
import io.setpoint.loadgen.etcd.TxnRequest;
import io.setpoint.loadgen.etcd.TxnResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
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
  private final long deadlineMillis;

  private EtcdTarget(List<String> endpoints, long deadlineMillis) {
    this.channels = Channels.open(endpoints);
    this.deadlineMillis = deadlineMillis;
    for (ManagedChannel channel : channels) {
      stubs.add(KVGrpc.newBlockingStub(channel));
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
