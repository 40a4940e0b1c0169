package io.setpoint.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.protobuf.Any;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.setpoint.api.Ids;
import io.setpoint.api.v1.ReadRequest;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.WriteRequest;
import io.setpoint.demo.DemoTypes;
import io.setpoint.demo.v2.Artist;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Errors about very long input, over gRPC and HTTP: each is answered promptly with a message that
 * names the field and the rule and repeats only the start of the input and its length. (Before,
 * the whole input was copied into the message, three times over gRPC: a 3,000-character name made
 * a trailer grpc-java refuses, a 1 MiB one a trailer no client takes.)
 */
class LongInputTest {
  @RegisterExtension static final LiveAgent live = LiveAgent.withMaxRequestBytes(4 << 20);

  private static final int MIB = 1 << 20;
  private static final int LONG_KEY = 40_000;
  /** What grpc-java's client accepts as a whole trailer by default. */
  private static final int MAX_TRAILER_BYTES = 8 << 10;
  private static Http http;

  @BeforeAll
  static void client() {
    http = new Http(live.agent().port());
  }

  @ParameterizedTest(name = "a name of {0} characters")
  @ValueSource(ints = {3_000, 64 << 10, MIB})
  void grpcWriteOfALongNameGetsATruncatedMessage(int length) {
    String name = "a".repeat(length - 1) + "_";
    Resource artist = Resource.newBuilder().setId(Ids.of(DemoTypes.ARTIST, name))
        .setData(Any.pack(Artist.newBuilder().setName("Long").build())).build();

    assertThatThrownBy(() -> live.stub().withDeadlineAfter(10, TimeUnit.SECONDS)
        .write(WriteRequest.newBuilder().setResource(artist).build()))
        .isInstanceOfSatisfying(StatusRuntimeException.class, e -> assertBounded(e, "resource.id.name", length));
  }

  @Test
  void grpcReadOfAMebibyteNameGetsATruncatedMessage() {
    assertThatThrownBy(() -> live.stub().withDeadlineAfter(10, TimeUnit.SECONDS)
        .read(ReadRequest.newBuilder().setId(Ids.of(DemoTypes.ARTIST, "b".repeat(MIB))).build()))
        .isInstanceOfSatisfying(StatusRuntimeException.class, e -> assertBounded(e, "id.name", MIB));
  }

  @Test
  void grpcWriteOfThousandsOfBadMetadataKeysGetsABoundedAnswer() {
    Resource.Builder artist = Resource.newBuilder().setId(Ids.of(DemoTypes.ARTIST, "keys"))
        .setData(Any.pack(Artist.newBuilder().setName("Keys").build()));
    for (int i = 0; i < 5_000; i++) {
      artist.putMetadata("-" + "k".repeat(200) + i, "v");
    }

    assertThatThrownBy(() -> live.stub().write(WriteRequest.newBuilder().setResource(artist).build()))
        .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
          assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
          assertThat(e.getStatus().getDescription()).contains("resource.metadata");
          assertThat(trailerBytes(e.getTrailers())).isLessThan(MAX_TRAILER_BYTES);
        });
  }

  @ParameterizedTest(name = "a name of {0} characters")
  @ValueSource(ints = {3_000, MIB})
  void httpWriteOfALongNameGetsATruncatedMessage(int length) {
    String name = "c".repeat(length);
    Http.Answer answer = http.put("/api/demo/v2/Artist/x", "{\"id\": {\"name\": \"" + name + "\"}, \"data\": {\"name\": \"Long\"}}");

    assertThat(answer.status()).as(answer.text()).isEqualTo(400);
    JsonNode error = answer.json();
    assertThat(error.get("field").asText()).isEqualTo("resource.id.name");
    assertThat(error.at("/violations/0/rule").asText()).isEqualTo("url");
    assertThat(error.get("message").asText()).contains("(" + length + " characters)");
    assertThat(answer.text().length()).isLessThan(4_000);
  }

  /** JSON object keys are cut at 40,000 characters: the JSON parser refuses names over 50,000. */
  @Test
  void httpWriteOfALongMetadataKeyGetsATruncatedMessage() {
    String key = "-" + "d".repeat(LONG_KEY - 1);
    Http.Answer answer = http.put("/api/demo/v2/Artist/x",
        "{\"metadata\": {\"" + key + "\": \"v\"}, \"data\": {\"name\": \"Long\"}}");

    assertThat(answer.status()).as(answer.text()).isEqualTo(400);
    JsonNode error = answer.json();
    assertThat(error.get("field").asText()).startsWith("resource.metadata[").contains("(" + LONG_KEY + " characters)");
    assertThat(error.at("/violations/0/rule").asText()).isEqualTo("metadata-key");
    assertThat(answer.text().length()).isLessThan(4_000);
  }

  @ParameterizedTest(name = "a field name of {0} characters")
  @ValueSource(ints = {LONG_KEY, MIB})
  void httpUnknownFieldWithALongNameGetsATruncatedMessage(int length) {
    Http.Answer answer = http.put("/api/demo/v2/Artist/x", "{\"" + "e".repeat(length) + "\": 1}");

    assertThat(answer.status()).as(answer.text()).isEqualTo(400);
    // Names beyond the JSON parser's limit are a JSON syntax error, before any field is looked up.
    assertThat(answer.json().at("/violations/0/rule").asText()).isEqualTo(length == MIB ? "json" : "unknown-field");
    assertThat(answer.text().length()).isLessThan(4_000);
  }

  private static void assertBounded(StatusRuntimeException e, String field, int length) {
    Status status = e.getStatus();
    assertThat(status.getCode()).as("%s", status).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(status.getDescription()).contains(field).contains("dns-label").contains("(" + length + " characters)");
    assertThat(status.getDescription().length()).isLessThan(1_000);
    assertThat(trailerBytes(e.getTrailers())).isLessThan(MAX_TRAILER_BYTES);
  }

  private static int trailerBytes(Metadata trailers) {
    int total = 0;
    for (String key : trailers.keys()) {
      Iterable<?> values = key.endsWith(Metadata.BINARY_HEADER_SUFFIX)
          ? trailers.getAll(Metadata.Key.of(key, Metadata.BINARY_BYTE_MARSHALLER))
          : trailers.getAll(Metadata.Key.of(key, Metadata.ASCII_STRING_MARSHALLER));
      for (Object value : values) {
        total += key.length() + (value instanceof byte[] bytes ? bytes.length * 4 / 3 : value.toString().getBytes(StandardCharsets.UTF_8).length);
      }
    }
    return total;
  }
}
