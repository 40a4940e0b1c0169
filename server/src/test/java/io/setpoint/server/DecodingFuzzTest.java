package io.setpoint.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.generators.SourceDSL.lists;

import com.google.protobuf.Any;
import com.google.protobuf.Message;
import io.grpc.Status;
import io.setpoint.api.Ids;
import io.setpoint.api.v1.DeleteRequest;
import io.setpoint.api.v1.ListByOwnerRequest;
import io.setpoint.api.v1.ListRequest;
import io.setpoint.api.v1.MutateAndValidateRequest;
import io.setpoint.api.v1.ReadRequest;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.ResourceServiceGrpc;
import io.setpoint.api.v1.WatchListRequest;
import io.setpoint.api.v1.WriteRequest;
import io.setpoint.api.v1.WriteStatusRequest;
import io.setpoint.demo.DemoTypes;
import io.setpoint.demo.v2.Artist;
import io.setpoint.testkit.SeededTheory;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

/**
 * Fuzzes the decoding paths through a real agent: mutated and random request bytes on every
 * resource method over gRPC (a raw byte channel, so nothing is re-encoded on the way), and
 * requests with mutated paths, query strings, headers and JSON bodies over HTTP. Whatever is sent,
 * the answer is never a server error ({@code INTERNAL}, {@code UNKNOWN}, {@code DATA_LOSS}, or an
 * HTTP 5xx), an HTTP error is a JSON body, and a refused request leaves the store as it was.
 *
 * <p>A fixed seed runs in the normal suite in a few seconds (QuickTheories reports the seed and the
 * smallest failing input); {@code -DQT_SEED=... -DQT_EXAMPLES=...} explores further.
 */
class DecodingFuzzTest {
  @RegisterExtension static final LiveAgent live = new LiveAgent();

  private static final long SEED = 0x5e7_f022L;
  private static final int EXAMPLES = 1_000;
  private static final int SHRINK_CYCLES = 200;
  private static final Set<Status.Code> SERVER_ERRORS = Set.of(Status.Code.INTERNAL, Status.Code.UNKNOWN, Status.Code.DATA_LOSS);

  private static Resource existing;
  private static Http http;

  @BeforeAll
  static void storeSomething() {
    http = new Http(live.agent().port());
    // Nothing owned: deleting an owner starts a cascade, which would change the store later, while
    // another request is checked for changing nothing.
    existing = live.write(DemoTypes.ARTIST, "existing", Artist.newBuilder().setName("Existing").build());
  }

  // ---- gRPC ----

  /** A method and a valid request for it, which mutations start from. */
  record GrpcSeed(String method, boolean streaming, byte[] request) {
    @Override
    public String toString() {
      return method;
    }
  }

  /** One change to a byte string; {@code at} is taken modulo its length. */
  record Mutation(int kind, int at, int value) {
    byte[] apply(byte[] in) {
      int n = in.length;
      int i = n == 0 ? 0 : Math.floorMod(at, n);
      return switch (kind) {
        case 0 -> n == 0 ? in : with(in, i, (byte) (in[i] ^ (1 << (value & 7))));
        case 1 -> n == 0 ? in : with(in, i, (byte) value);
        case 2 -> insert(in, i, (byte) value);
        case 3 -> n == 0 ? in : remove(in, i);
        default -> Arrays.copyOf(in, i);
      };
    }
  }

  @Test
  void grpcRequestBytesNeverGetAServerErrorNorChangeTheStoreWhenRefused() {
    List<GrpcSeed> seeds = grpcSeeds();
    Gen<byte[]> randomBytes = Generate.byteArrays(Generate.range(0, 48), Generate.bytes((byte) -128, (byte) 127, (byte) 0));
    Gen<byte[]> noBytes = Generate.constant(new byte[0]);
    RawGrpc raw = new RawGrpc(live.channel());

    SeededTheory.of(SEED, EXAMPLES, SHRINK_CYCLES)
        .forAll(Generate.pick(seeds), mutations(), Generate.frequency(
            org.quicktheories.api.Pair.of(4, noBytes), org.quicktheories.api.Pair.of(1, randomBytes)))
        .checkAssert((seed, changes, prefix) -> {
          byte[] request = concat(prefix, mutate(seed.request(), changes));
          byte[] before = live.storeBytes();

          Status status = raw.call(ResourceServiceGrpc.SERVICE_NAME + "/" + seed.method(), request, seed.streaming());

          assertThat(status.getCode()).as("%s on %s", status, seed).isNotIn(SERVER_ERRORS);
          if (!status.isOk()) {
            assertThat(status.getDescription()).as("message of %s", status).isNotBlank();
            assertThat(live.storeBytes()).as("store after a refused %s", seed).isEqualTo(before);
          }
        });
  }

  private static List<GrpcSeed> grpcSeeds() {
    Resource artist = Resource.newBuilder().setId(Ids.of(DemoTypes.ARTIST, "fuzzed"))
        .setData(Any.pack(Artist.newBuilder().setName("Fuzzed").putGroupMembers("one", "guitar").build()))
        .putMetadata("label", "value").build();
    WriteStatusRequest.Builder status = WriteStatusRequest.newBuilder().setId(existing.getId()).setKey("demo.setpoint.io/fuzz");
    status.getStatusBuilder().addConditionsBuilder().setType("Accepted").setReason("OK").setMessage("fine");
    return List.of(
        seed("Write", WriteRequest.newBuilder().setResource(artist).build()),
        seed("MutateAndValidate", MutateAndValidateRequest.newBuilder().setResource(artist).build()),
        seed("Read", ReadRequest.newBuilder().setId(existing.getId()).setConsistent(true).build()),
        seed("List", ListRequest.newBuilder().setType(DemoTypes.ARTIST).setNamePrefix("ex").setPageSize(1).build()),
        seed("ListByOwner", ListByOwnerRequest.newBuilder().setOwner(existing.getId()).build()),
        seed("WriteStatus", status.build()),
        seed("Delete", DeleteRequest.newBuilder().setId(Ids.of(DemoTypes.ARTIST, "absent")).setVersion("1").build()),
        new GrpcSeed("WatchList", true, WatchListRequest.newBuilder().setType(DemoTypes.ARTIST).setSinceRevision(1).build().toByteArray()));
  }

  private static GrpcSeed seed(String method, Message request) {
    return new GrpcSeed(method, false, request.toByteArray());
  }

  // ---- HTTP ----

  /** Pieces paths and query values are made of: route words, bytes that are no UTF-8, oddities. */
  private static final List<String> ATOMS = List.of(
      "demo", "v2", "v1", "Artist", "Album", "existing", "owned", "status", "demo.setpoint.io", "x", "types",
      "openapi.json", "%C0%AF", "%ED%A0%80", "%FF", "%2F", "%25", "%00", "%20", "%E2%82%AC", "%F0%9F%98%80",
      "+", ".", "..", "-", "_", "*", "A", "0", "18446744073709551615", "-1", "a".repeat(70));
  private static final List<String> PARAMETERS = List.of(
      "partition", "namespace", "name_prefix", "page_size", "page_token", "consistent", "uid", "version", "bogus");
  private static final List<String> CONTENT_TYPES = List.of(
      "application/json", "application/json; charset=utf-8", "application/merge-patch+json", ";;;", "text/plain",
      "application/json; charset=iso-8859-1", "application/json; charset=", "*/*", "application/", "none");
  private static final List<String> EVENT_IDS = List.of("none", "", "0", "1", "-1", "18446744073709551615",
      "18446744073709551616", "99999999", "abc");
  private static final List<String> BODIES = List.of(
      "{\"data\": {\"name\": \"Fuzzed\", \"groupMembers\": {\"one\": \"guitar\"}}, \"metadata\": {\"label\": \"value\"}}",
      "{\"id\": {\"name\": \"x\", \"tenancy\": {\"partition\": \"default\"}}, \"version\": \"1\", \"data\": {\"@type\": \"type.googleapis.com/setpoint.demo.v2.Artist\", \"name\": \"A\"}}",
      "{\"conditions\": [{\"type\": \"Accepted\", \"state\": \"STATE_TRUE\", \"reason\": \"OK\", \"message\": \"m\"}]}",
      "");
  /** Bytes worth inserting into JSON: structure, escapes, and bytes that are no UTF-8. */
  private static final List<Integer> JSON_BYTES = List.of(
      (int) '"', (int) '\\', (int) '{', (int) '}', (int) '[', (int) ']', (int) ',', (int) ':', (int) 'u', (int) 'd', (int) '8',
      0xC0, 0xAF, 0xED, 0xA0, 0x80, 0xFF, 0x00, 0x7F);

  /** One HTTP request to send. */
  record Call(String method, String path, String query, String contentType, String lastEventId, byte[] body) {
    @Override
    public String toString() {
      return method + " " + path + (query.isEmpty() ? "" : "?" + query) + " [Content-Type " + contentType
          + ", Last-Event-ID " + lastEventId + "] " + new String(body, StandardCharsets.ISO_8859_1);
    }
  }

  @Test
  void httpRequestsNeverGetAServerErrorNorChangeTheStoreWhenRefused() {
    SeededTheory.of(SEED, EXAMPLES, SHRINK_CYCLES)
        .forAll(calls())
        .checkAssert(call -> {
          byte[] before = live.storeBytes();

          Answer answer = send(call);

          assertThat(answer.status()).as("%s -> %s", call, answer).isLessThan(500);
          if (answer.status() >= 400) {
            assertThat(answer.contentType()).as("%s -> %s", call, answer).startsWith("application/json");
            assertThat(new Http.Answer(answer.status(), answer.contentType(), answer.body()).json().path("code").asText())
                .as("%s -> %s", call, answer).isNotEmpty();
          }
          if (answer.status() != 200) {
            assertThat(live.storeBytes()).as("store after %s -> %s", call, answer).isEqualTo(before);
          }
        });
  }

  private static Gen<Call> calls() {
    Gen<String> path = lists().of(Generate.pick(ATOMS)).ofSizeBetween(0, 3).zip(
        lists().of(Generate.pick(ATOMS)).ofSizeBetween(0, 3), Generate.pick(List.of("/api/demo/v2/Artist", "/api", "")),
        (extra, name, base) -> base + "/" + String.join("", name) + (extra.isEmpty() ? "" : "/" + String.join("/", extra)));
    Gen<String> query = lists().of(Generate.pick(PARAMETERS).zip(Generate.pick(ATOMS), (k, v) -> k + "=" + v))
        .ofSizeBetween(0, 3).zip(Generate.booleans(), (pairs, watch) -> String.join("&", pairs) + (watch ? "&watch=true" : ""));
    Gen<byte[]> body = Generate.pick(BODIES).zip(lists().of(Generate.range(0, 4).zip(Generate.range(0, 1000),
        Generate.pick(JSON_BYTES), Mutation::new)).ofSizeBetween(0, 4),
        (json, changes) -> mutate(json.getBytes(StandardCharsets.UTF_8), changes));
    return Generate.pick(List.of("GET", "PUT", "DELETE", "POST")).zip(path, query, Generate.pick(CONTENT_TYPES).zip(
        Generate.pick(EVENT_IDS), (type, id) -> new String[] {type, id}), body,
        (method, p, q, headers, b) -> new Call(method, p, q, headers[0], headers[1], b));
  }

  /** What came back: status, content type, and the body unless it is an event stream. */
  record Answer(int status, String contentType, String body) {}

  private static Answer send(Call call) {
    HttpRequest.Builder req = HttpRequest.newBuilder(URI.create(http.uri(call.path()) + (call.query().isEmpty() ? "" : "?" + call.query())))
        .timeout(Duration.ofSeconds(10))
        .method(call.method(), call.body().length == 0 ? BodyPublishers.noBody() : BodyPublishers.ofByteArray(call.body()));
    if (!call.contentType().equals("none")) {
      req.header("Content-Type", call.contentType());
    }
    if (!call.lastEventId().equals("none")) {
      req.header("Last-Event-ID", call.lastEventId());
    }
    try {
      HttpResponse<InputStream> res = http.client().send(req.build(), BodyHandlers.ofInputStream());
      String type = res.headers().firstValue("content-type").orElse("");
      try (InputStream in = res.body()) {
        // A watch that started streams until cancelled: its status and headers are the answer.
        String body = type.startsWith("text/event-stream") ? "" : new String(in.readAllBytes(), StandardCharsets.UTF_8);
        return new Answer(res.statusCode(), type, body);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(call.toString(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  // ---- byte strings ----

  private static Gen<List<Mutation>> mutations() {
    return lists().of(Generate.range(0, 4).zip(Generate.range(0, 10_000), Generate.range(0, 255), Mutation::new)).ofSizeBetween(0, 6);
  }

  private static byte[] mutate(byte[] bytes, List<Mutation> changes) {
    byte[] out = bytes;
    for (Mutation m : changes) {
      out = m.apply(out);
    }
    return out;
  }

  private static byte[] with(byte[] in, int i, byte value) {
    byte[] out = in.clone();
    out[i] = value;
    return out;
  }

  private static byte[] insert(byte[] in, int i, byte value) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(in.length + 1);
    out.write(in, 0, i);
    out.write(value);
    out.write(in, i, in.length - i);
    return out.toByteArray();
  }

  private static byte[] remove(byte[] in, int i) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(in.length);
    out.write(in, 0, i);
    out.write(in, i + 1, in.length - i - 1);
    return out.toByteArray();
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] out = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }
}
