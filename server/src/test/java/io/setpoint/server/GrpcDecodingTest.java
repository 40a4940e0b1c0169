package io.setpoint.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Any;
import com.google.protobuf.ByteString;
import io.grpc.Status;
import io.setpoint.api.Ids;
import io.setpoint.api.v1.ReadRequest;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.ResourceServiceGrpc;
import io.setpoint.api.v1.WriteRequest;
import io.setpoint.demo.DemoTypes;
import io.setpoint.demo.v2.Album;
import io.setpoint.demo.v2.Artist;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Request bytes the server cannot take, sent as they are through a real gRPC channel: each gets
 * the code a client can act on (INVALID_ARGUMENT, RESOURCE_EXHAUSTED) with a message saying why,
 * never INTERNAL or UNKNOWN, and the store is unchanged.
 */
class GrpcDecodingTest {
  @RegisterExtension static final LiveAgent live = new LiveAgent();

  private static final String SERVICE = ResourceServiceGrpc.SERVICE_NAME + "/";
  /** A length-delimited field 1 that claims 127 bytes and holds 1: no protobuf message parses it. */
  private static final byte[] TRUNCATED = {0x0a, 0x7f, 0x01};

  @ParameterizedTest(name = "{0}")
  @CsvSource({
      "Write, WriteRequest, false",
      "Read, ReadRequest, false",
      "List, ListRequest, false",
      "Delete, DeleteRequest, false",
      "WriteStatus, WriteStatusRequest, false",
      "WatchList, WatchListRequest, true"})
  void undecodableRequestIsInvalidArgument(String method, String message, boolean streaming) {
    byte[] before = live.storeBytes();

    Status status = raw().call(SERVICE + method, TRUNCATED, streaming);

    assertThat(status.getCode()).as("%s", status).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(status.getDescription()).contains("setpoint.resource.v1." + message).contains("cannot be decoded");
    assertThat(live.storeBytes()).isEqualTo(before);
  }

  @Test
  void requestOverTheLimitIsResourceExhaustedWithAMessage() {
    byte[] before = live.storeBytes();
    byte[] huge = WriteRequest.newBuilder().setResource(artist("huge").toBuilder()
        .putMetadata("pad", "p".repeat(4 * LiveAgent.MAX_REQUEST_BYTES))).build().toByteArray();

    Status status = raw().call(SERVICE + "Write", huge, false);

    assertThat(status.getCode()).as("%s", status).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(status.getDescription()).contains(String.valueOf(LiveAgent.MAX_REQUEST_BYTES)).contains("bytes");
    assertThat(live.storeBytes()).isEqualTo(before);
  }

  /** {@code C0 AF} is an overlong "/"; {@code ED A0 80} a lone surrogate: neither is UTF-8. */
  @ParameterizedTest(name = "bytes {0}")
  @CsvSource({"C0AF", "EDA080", "FF"})
  void stringThatIsNoUtf8IsInvalidArgument(String hex) {
    byte[] before = live.storeBytes();
    byte[] bad = java.util.HexFormat.of().parseHex(hex);
    byte[] request = replace(WriteRequest.newBuilder().setResource(artist("x" + "z".repeat(bad.length - 1))).build().toByteArray(),
        ("x" + "z".repeat(bad.length - 1)).getBytes(StandardCharsets.UTF_8), bad);

    Status status = raw().call(SERVICE + "Write", request, false);

    assertThat(status.getCode()).as("%s", status).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(status.getDescription()).contains("UTF-8");
    assertThat(live.storeBytes()).isEqualTo(before);
  }

  /** Album has no mutate hook that would re-pack its data. */
  @Test
  void anyTypeUrlIsStoredWithTheCanonicalPrefix() {
    Resource written = live.write(Resource.newBuilder().setId(Ids.of(DemoTypes.ALBUM, "prefixed"))
        .setData(Any.newBuilder().setTypeUrl("evil.example/whatever/setpoint.demo.v2.Album")
            .setValue(Album.newBuilder().setName("P").build().toByteString()))
        .build());

    assertThat(written.getData().getTypeUrl()).isEqualTo("type.googleapis.com/setpoint.demo.v2.Album");
    assertThat(live.stub().read(ReadRequest.newBuilder().setId(written.getId()).build()).getResource().getData().getTypeUrl())
        .isEqualTo("type.googleapis.com/setpoint.demo.v2.Album");
  }

  private static RawGrpc raw() {
    return new RawGrpc(live.channel());
  }

  private static Resource artist(String name) {
    return Resource.newBuilder().setId(Ids.of(DemoTypes.ARTIST, name))
        .setData(Any.pack(Artist.newBuilder().setName("Someone").build())).build();
  }

  /** {@code bytes} with the one occurrence of {@code from} replaced by {@code to}, of equal length. */
  private static byte[] replace(byte[] bytes, byte[] from, byte[] to) {
    for (int i = 0; i + from.length <= bytes.length; i++) {
      if (Arrays.equals(bytes, i, i + from.length, from, 0, from.length)) {
        byte[] out = bytes.clone();
        System.arraycopy(to, 0, out, i, to.length);
        return out;
      }
    }
    throw new AssertionError("no " + ByteString.copyFrom(from) + " in the request");
  }
}
