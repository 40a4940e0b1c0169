package io.setpoint.loadgen;

import com.google.protobuf.Any;
import io.grpc.Channel;
import io.grpc.ClientInterceptors;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.MetadataUtils;
import io.setpoint.api.Ids;
import io.setpoint.api.acl.v1.AclServiceGrpc;
import io.setpoint.api.acl.v1.BootstrapRequest;
import io.setpoint.api.operator.v1.ListPeersRequest;
import io.setpoint.api.operator.v1.ListPeersResponse;
import io.setpoint.api.operator.v1.OperatorServiceGrpc;
import io.setpoint.api.operator.v1.OperatorServiceGrpc.OperatorServiceBlockingStub;
import io.setpoint.api.operator.v1.TransferLeaderRequest;
import io.setpoint.api.v1.ReadRequest;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.ResourceServiceGrpc;
import io.setpoint.api.v1.ResourceServiceGrpc.ResourceServiceBlockingStub;
import io.setpoint.api.v1.WriteRequest;
import io.setpoint.demo.DemoTypes;
import io.setpoint.demo.v2.Artist;
import io.setpoint.demo.v2.Genre;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;

/**
 * Setpoint's resource service: each key is a {@code demo.v2.Artist} of that name in the default
 * tenancy, whose data (the packed {@code Any}) is {@value Target#PAYLOAD_BYTES} bytes. A put is a
 * Write without a version, a CAS a Write with the expected version ({@code ABORTED} when it
 * differs), and a version read a consistent Read.
 */
public final class SetpointTarget implements Target {
  /** The ACL token header of {@code io.setpoint.client.SetpointClient}. */
  static final String TOKEN_HEADER = "x-setpoint-token";

  private static final String NAME = "Bench";
  private static final int DESCRIPTION_LENGTH = descriptionLength();

  private final List<ManagedChannel> channels;
  private final List<ResourceServiceBlockingStub> stubs = new ArrayList<>();
  private final List<OperatorServiceBlockingStub> operators = new ArrayList<>();
  private final long deadlineMillis;

  private SetpointTarget(List<String> endpoints, String token, long deadlineMillis) {
    this.channels = Channels.open(endpoints);
    this.deadlineMillis = deadlineMillis;
    for (ManagedChannel channel : channels) {
      Channel calls = channel;
      if (token != null && !token.isEmpty()) {
        Metadata headers = new Metadata();
        headers.put(Metadata.Key.of(TOKEN_HEADER, Metadata.ASCII_STRING_MARSHALLER), token);
        calls = ClientInterceptors.intercept(channel, MetadataUtils.newAttachHeadersInterceptor(headers));
      }
      stubs.add(ResourceServiceGrpc.newBlockingStub(calls));
      operators.add(OperatorServiceGrpc.newBlockingStub(calls));
    }
  }

  /**
   * A target over agents at {@code endpoints} ({@code host:port} each), sending {@code token} as
   * the ACL token when it is not empty; every call has a deadline of {@code deadlineMillis}.
   */
  public static SetpointTarget connect(List<String> endpoints, String token, long deadlineMillis) {
    return new SetpointTarget(endpoints, token, deadlineMillis);
  }

  /**
   * Creates the first management token of the agents at {@code endpoint} (ACLs on, none yet) and
   * returns its secret, retrying while the cluster cannot take writes yet.
   */
  public static String bootstrapToken(String endpoint, Duration timeout) throws InterruptedException {
    List<ManagedChannel> channel = Channels.open(List.of(endpoint));
    try {
      long deadline = System.nanoTime() + timeout.toNanos();
      for (;;) {
        try {
          return AclServiceGrpc.newBlockingStub(channel.get(0))
              .withDeadlineAfter(10, TimeUnit.SECONDS)
              .bootstrap(BootstrapRequest.getDefaultInstance())
              .getSecret();
        } catch (StatusRuntimeException e) {
          Status.Code code = e.getStatus().getCode();
          boolean retry = code == Status.Code.UNAVAILABLE || code == Status.Code.DEADLINE_EXCEEDED;
          if (!retry || System.nanoTime() > deadline) {
            throw new IllegalStateException("cannot bootstrap an ACL token at " + endpoint + ": "
                + WriteLoad.describe(e), e);
          }
          Thread.sleep(100);
        }
      }
    } finally {
      Channels.close(channel);
    }
  }

  @Override
  public String system() {
    return "setpoint";
  }

  @Override
  public int endpoints() {
    return stubs.size();
  }

  @Override
  public OptionalInt leaderEndpoint() {
    for (int i = 0; i < operators.size(); i++) {
      try {
        ListPeersResponse peers = operators.get(i).withDeadlineAfter(deadlineMillis, TimeUnit.MILLISECONDS)
            .listPeers(ListPeersRequest.getDefaultInstance());
        if (peers.getPeersList().stream().anyMatch(p -> p.getLeader() && p.getName().equals(peers.getAnsweredBy()))) {
          return OptionalInt.of(i);
        }
      } catch (StatusRuntimeException e) {
        if (e.getStatus().getCode() == Status.Code.FAILED_PRECONDITION) {
          // The in-memory store (-dev): no Raft, one agent, which decides every write itself.
          return OptionalInt.of(i);
        }
        // This member cannot say now; ask the next.
      }
    }
    return OptionalInt.empty();
  }

  @Override
  public void moveLeader(int endpoint, Duration timeout) throws InterruptedException {
    String name = operators.get(endpoint).withDeadlineAfter(deadlineMillis, TimeUnit.MILLISECONDS)
        .listPeers(ListPeersRequest.getDefaultInstance()).getAnsweredBy();
    operators.get(endpoint).withDeadlineAfter(timeout.toMillis(), TimeUnit.MILLISECONDS)
        .transferLeader(TransferLeaderRequest.newBuilder().setTo(name).build());
    WriteLoad.awaitLeader(this, endpoint, timeout);
  }

  @Override
  public Writer writer(int client) {
    ResourceServiceBlockingStub stub = stubs.get(Math.floorMod(client, stubs.size()));
    return new Writer() {
      @Override
      public long put(String key, long seq) {
        return write(stub, artist(key, "", seq));
      }

      @Override
      public long cas(String key, long expected, long seq) {
        try {
          return write(stub, artist(key, Long.toString(expected), seq));
        } catch (StatusRuntimeException e) {
          if (e.getStatus().getCode() == Status.Code.ABORTED) {
            return CONFLICT;
          }
          throw e;
        }
      }

      @Override
      public long version(String key) {
        try {
          Resource stored = stub.withDeadlineAfter(deadlineMillis, TimeUnit.MILLISECONDS)
              .read(ReadRequest.newBuilder().setId(Ids.of(DemoTypes.ARTIST, key)).setConsistent(true).build())
              .getResource();
          return Long.parseLong(stored.getVersion());
        } catch (StatusRuntimeException e) {
          if (e.getStatus().getCode() == Status.Code.NOT_FOUND) {
            return 0;
          }
          throw e;
        }
      }
    };
  }

  private long write(ResourceServiceBlockingStub stub, Resource resource) {
    Resource stored = stub.withDeadlineAfter(deadlineMillis, TimeUnit.MILLISECONDS)
        .write(WriteRequest.newBuilder().setResource(resource).build())
        .getResource();
    return Long.parseLong(stored.getVersion());
  }

  /** The Artist {@code key} at {@code version} (empty: any), with data unique to {@code seq}. */
  static Resource artist(String key, String version, long seq) {
    return Resource.newBuilder()
        .setId(Ids.of(DemoTypes.ARTIST, key))
        .setVersion(version)
        .setData(data(seq))
        .build();
  }

  /**
   * The packed Artist of write {@code seq}: exactly {@value Target#PAYLOAD_BYTES} bytes serialized.
   * The genre is set so the type's defaulting hook leaves the data alone.
   */
  static Any data(long seq) {
    return Any.pack(artistData(seq, DESCRIPTION_LENGTH));
  }

  private static Artist artistData(long seq, int descriptionLength) {
    return Artist.newBuilder()
        .setName(NAME)
        .setGenre(Genre.GENRE_DISCO)
        .setDescription(Payloads.text(seq, descriptionLength))
        .build();
  }

  /** The description length that makes the packed Artist {@value Target#PAYLOAD_BYTES} bytes. */
  private static int descriptionLength() {
    for (int length = Payloads.MIN_LENGTH; length < PAYLOAD_BYTES; length++) {
      if (Any.pack(artistData(0, length)).getSerializedSize() == PAYLOAD_BYTES) {
        return length;
      }
    }
    throw new IllegalStateException("no description length packs an Artist into " + PAYLOAD_BYTES + " bytes");
  }

  @Override
  public void close() {
    Channels.close(channels);
  }
}
