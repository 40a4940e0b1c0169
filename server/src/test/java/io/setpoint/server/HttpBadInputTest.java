package io.setpoint.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.protobuf.Any;
import io.setpoint.api.Ids;
import io.setpoint.api.v1.Resource;
import io.setpoint.demo.DemoTypes;
import io.setpoint.demo.v2.Album;
import io.setpoint.demo.v2.Artist;
import java.net.http.HttpRequest.BodyPublisher;
import java.net.http.HttpRequest.BodyPublishers;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Malformed requests through the real HTTP gateway (the HTTP counterparts of the gRPC
 * BadInputTest, plus what only HTTP has: JSON syntax, content types, routes, query parameters):
 * each gets its HTTP status and a JSON error body with the gRPC code and the offending field, and
 * leaves the store exactly as it was.
 */
class HttpBadInputTest {
  @RegisterExtension static final LiveAgent live = new LiveAgent();

  private static final String VALID_ULID = "01JCZZZZZZZZZZZZZZZZZZZZZZ";
  private static final String ARTISTS = "/api/demo/v2/Artist";
  private static final String ARTIST_TYPE = "{\"group\": \"demo\", \"groupVersion\": \"v2\", \"kind\": \"Artist\"}";
  private static Http http;
  private static Resource existing;

  /**
   * One bad request: what to send, the HTTP status and gRPC code it must get, and the field its
   * error must name (a prefix of it), or else text its message must hold.
   */
  record Case(String name, Supplier<Http.Answer> call, int status, String code, String field, String text) {
    @Override
    public String toString() {
      return name;
    }
  }

  @BeforeAll
  static void storeSomething() {
    http = new Http(live.agent().port());
    existing = live.write(DemoTypes.ARTIST, "existing", Artist.newBuilder().setName("Existing").build());
    live.write(Resource.newBuilder().setId(Ids.of(DemoTypes.ALBUM, "owned"))
        .setOwner(existing.getId()).setData(Any.pack(Album.newBuilder().setName("Owned").build())).build());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void badRequestGetsItsStatusAJsonErrorNamingTheFieldAndChangesNothing(Case c) {
    byte[] before = live.storeBytes();

    Http.Answer answer = c.call().get();

    assertThat(answer.status()).as("status of %s: %s", c.name(), answer.text()).isEqualTo(c.status());
    assertThat(answer.contentType()).as("content type of %s", c.name()).startsWith("application/json");
    JsonNode error = answer.json();
    assertThat(error.get("code").asText()).as("code of %s: %s", c.name(), answer.text()).isEqualTo(c.code());
    assertThat(error.get("message").asText()).as("message of %s", c.name()).isNotBlank();
    if (c.field() != null) {
      assertThat(error.path("field").asText()).as("field of %s: %s", c.name(), answer.text()).startsWith(c.field());
      assertThat(error.at("/violations/0/field")).isEqualTo(error.get("field"));
    }
    if (c.text() != null) {
      assertThat(error.get("message").asText()).as("message of %s", c.name()).contains(c.text());
    }
    assertThat(live.storeBytes()).as("store after %s", c.name()).isEqualTo(before);
  }

  @Test
  void thereAreAtLeastEightyDistinctCases() {
    List<Case> all = cases().toList();
    assertThat(all).hasSizeGreaterThanOrEqualTo(80);
    assertThat(all.stream().map(Case::name).distinct().count()).isEqualTo(all.size());
  }

  // ---- request builders ----

  private static Supplier<Http.Answer> put(String path, String body) {
    return () -> http.put(path, body);
  }

  private static Supplier<Http.Answer> put(String path, String contentType, BodyPublisher body) {
    return () -> http.send("PUT", path, contentType, body, Map.of());
  }

  private static Supplier<Http.Answer> get(String path) {
    return () -> http.get(path);
  }

  private static Supplier<Http.Answer> get(String path, Map<String, String> headers) {
    return () -> http.send("GET", path, null, BodyPublishers.noBody(), headers);
  }

  private static Supplier<Http.Answer> delete(String path) {
    return () -> http.delete(path);
  }

  private static Supplier<Http.Answer> method(String method, String path) {
    return () -> http.send(method, path, Http.JSON_TYPE, BodyPublishers.ofString("{}"), Map.of());
  }

  /** A status write to the existing artist; {@code query} is appended after its uid. */
  private static Supplier<Http.Answer> status(String key, String query, String body) {
    return () -> http.put(ARTISTS + "/existing/status/" + key + "?uid=" + existing.getId().getUid() + query, body);
  }

  private static Supplier<Http.Answer> status(String body) {
    return status("demo.setpoint.io/artist", "", body);
  }

  private static String artist(String name) {
    return "{\"data\": {\"name\": \"" + name + "\"}}";
  }

  private static String valid() {
    return artist("Someone");
  }

  private static String withOwner(String ownerJson) {
    return "{\"owner\": " + ownerJson + ", \"data\": {\"name\": \"n\"}}";
  }

  private static String condition(String fields) {
    return "{\"conditions\": [{" + fields + "}]}";
  }

  /** {@code json} in UTF-8 with its one {@code #} replaced by {@code bytes}. */
  private static byte[] utf8With(String json, int... bytes) {
    byte[] text = json.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    for (byte b : text) {
      if (b == '#') {
        for (int x : bytes) {
          out.write(x);
        }
      } else {
        out.write(b);
      }
    }
    return out.toByteArray();
  }

  private static String bigArtist(int descriptionBytes) {
    return "{\"data\": {\"name\": \"Big\", \"description\": \"" + "d".repeat(descriptionBytes) + "\"}}";
  }

  static Stream<Case> cases() {
    String ok = "\"type\": \"Accepted\", \"state\": \"STATE_TRUE\"";
    return Stream.of(
        // ---- routes and types in the path ----
        new Case("unknown type", put("/api/demo/v9/Artist/x", valid()), 404, "NOT_FOUND", null, "unknown type demo.v9.Artist"),
        new Case("group with capitals", put("/api/Demo/v2/Artist/x", valid()), 404, "NOT_FOUND", null, "unknown type Demo.v2.Artist"),
        new Case("group_version without v", put("/api/demo/2/Artist/x", valid()), 404, "NOT_FOUND", null, "unknown type demo.2.Artist"),
        new Case("kind in lower case", get("/api/demo/v2/artist"), 404, "NOT_FOUND", null, "unknown type demo.v2.artist"),
        new Case("empty name (trailing slash)", put(ARTISTS + "/", valid()), 404, "NOT_FOUND", null, "empty path segment"),
        new Case("path too short", get("/api/demo"), 404, "NOT_FOUND", null, "no route"),
        new Case("unknown sub-resource", get(ARTISTS + "/existing/nope"), 404, "NOT_FOUND", null, "no route"),
        new Case("POST to a collection", method("POST", ARTISTS), 405, "UNIMPLEMENTED", null, "POST"),
        new Case("PATCH of a resource", method("PATCH", ARTISTS + "/existing"), 405, "UNIMPLEMENTED", null, "GET, PUT, DELETE"),
        new Case("GET of a status", get(ARTISTS + "/existing/status/k"), 405, "UNIMPLEMENTED", null, "PUT"),
        new Case("PUT of the type list", method("PUT", "/api/types"), 405, "UNIMPLEMENTED", null, "GET"),
        // ---- Write: the name and tenancy in the URL ----
        new Case("name with capitals", put(ARTISTS + "/Miles", valid()), 400, "INVALID_ARGUMENT", "resource.id.name", null),
        new Case("name with underscore", put(ARTISTS + "/miles_davis", valid()), 400, "INVALID_ARGUMENT", "resource.id.name", null),
        new Case("name of 64 characters", put(ARTISTS + "/" + "a".repeat(64), valid()), 400, "INVALID_ARGUMENT", "resource.id.name", null),
        new Case("name ending in a dash", put(ARTISTS + "/miles-", valid()), 400, "INVALID_ARGUMENT", "resource.id.name", null),
        new Case("name with an encoded slash", put(ARTISTS + "/a%2Fb", valid()), 400, "INVALID_ARGUMENT", "resource.id.name", null),
        new Case("malformed uid", put(ARTISTS + "/x?uid=not-a-ulid", valid()), 400, "INVALID_ARGUMENT", "resource.id.uid", null),
        new Case("wildcard partition on write", put(ARTISTS + "/x?partition=*", valid()), 400, "INVALID_ARGUMENT", "resource.id.tenancy.partition", null),
        new Case("wildcard namespace on write", put(ARTISTS + "/x?namespace=*", valid()), 400, "INVALID_ARGUMENT", "resource.id.tenancy.namespace", null),
        new Case("partition that is no DNS label", put(ARTISTS + "/x?partition=Team%20A", valid()), 400, "INVALID_ARGUMENT", "resource.id.tenancy.partition", null),
        new Case("namespace that is no DNS label", put(ARTISTS + "/x?namespace=ns.1", valid()), 400, "INVALID_ARGUMENT", "resource.id.tenancy.namespace", null),
        new Case("namespace on a partition-scoped type", put("/api/demo/v1/RecordLabel/label?namespace=ns", "{\"data\": {\"name\": \"L\"}}"),
            400, "INVALID_ARGUMENT", "resource.id.tenancy.namespace", null),
        new Case("partition on a cluster-scoped type", put("/api/demo/v1/Executive/boss?partition=p", "{\"data\": {\"position\": \"CEO\"}}"),
            400, "INVALID_ARGUMENT", "resource.id.tenancy.partition", null),
        new Case("namespace on a cluster-scoped type", put("/api/demo/v1/Executive/boss?namespace=ns", "{\"data\": {\"position\": \"CEO\"}}"),
            400, "INVALID_ARGUMENT", "resource.id.tenancy.namespace", null),
        new Case("unknown query parameter", put(ARTISTS + "/x?dryrun=true", valid()), 400, "INVALID_ARGUMENT", "dryrun", null),
        new Case("repeated query parameter", put(ARTISTS + "/x?namespace=a&namespace=b", valid()), 400, "INVALID_ARGUMENT", "namespace", null),
        // ---- Write: the body as JSON ----
        new Case("empty body", put(ARTISTS + "/x", ""), 400, "INVALID_ARGUMENT", "resource", null),
        new Case("malformed JSON", put(ARTISTS + "/x", "{\"data\": "), 400, "INVALID_ARGUMENT", "resource", "not valid JSON"),
        new Case("trailing content after the JSON", put(ARTISTS + "/x", valid() + " {}"), 400, "INVALID_ARGUMENT", "resource", "not valid JSON"),
        new Case("duplicate key", put(ARTISTS + "/x", "{\"data\": {\"name\": \"a\", \"name\": \"b\"}}"), 400, "INVALID_ARGUMENT", "resource", "Duplicate"),
        new Case("body that is an array", put(ARTISTS + "/x", "[]"), 400, "INVALID_ARGUMENT", "resource", "an array"),
        new Case("unknown top-level field", put(ARTISTS + "/x", "{\"spec\": {}, \"data\": {\"name\": \"n\"}}"), 400, "INVALID_ARGUMENT", "resource.spec", null),
        new Case("unknown data field", put(ARTISTS + "/x", "{\"data\": {\"name\": \"n\", \"nmae\": \"x\"}}"), 400, "INVALID_ARGUMENT", "resource.data.nmae", null),
        new Case("unknown field in a track", put("/api/demo/v2/Album/x", "{\"data\": {\"name\": \"A\", \"tracks\": [{\"name\": \"one\"}, {\"title\": \"two\"}]}}"),
            400, "INVALID_ARGUMENT", "resource.data.tracks[1].title", null),
        new Case("string for an int32", put("/api/demo/v2/Album/x", "{\"data\": {\"name\": \"A\", \"yearOfRelease\": \"nineteen\"}}"),
            400, "INVALID_ARGUMENT", "resource.data.year_of_release", null),
        new Case("negative uint32 in a track", put("/api/demo/v2/Album/x", "{\"data\": {\"name\": \"A\", \"tracks\": [{\"name\": \"one\", \"lengthSeconds\": -1}]}}"),
            400, "INVALID_ARGUMENT", "resource.data.tracks[0].length_seconds", null),
        new Case("array for a string", put(ARTISTS + "/x", "{\"data\": {\"name\": [\"x\"]}}"), 400, "INVALID_ARGUMENT", "resource.data.name", "an array"),
        new Case("string for a repeated field", put(ARTISTS + "/x", "{\"data\": {\"name\": \"n\", \"discography\": \"x\"}}"),
            400, "INVALID_ARGUMENT", "resource.data.discography", "an array"),
        new Case("object for a map value", put(ARTISTS + "/x", "{\"data\": {\"name\": \"n\", \"groupMembers\": {\"a\": {}}}}"),
            400, "INVALID_ARGUMENT", "resource.data.group_members[\"a\"]", null),
        new Case("number for a track", put("/api/demo/v2/Album/x", "{\"data\": {\"name\": \"A\", \"tracks\": [{\"name\": \"one\"}, 5]}}"),
            400, "INVALID_ARGUMENT", "resource.data.tracks[1]", "a number"),
        new Case("string for the owner's type", put(ARTISTS + "/x", withOwner("{\"type\": \"demo.v2.Artist\", \"name\": \"x\"}")),
            400, "INVALID_ARGUMENT", "resource.owner.type", null),
        new Case("unknown enum name", put(ARTISTS + "/x", "{\"data\": {\"name\": \"n\", \"genre\": \"GENRE_NOPE\"}}"), 400, "INVALID_ARGUMENT", "resource.data.genre", null),
        new Case("data that is an array", put(ARTISTS + "/x", "{\"data\": []}"), 400, "INVALID_ARGUMENT", "resource.data", null),
        new Case("metadata that is a string", put(ARTISTS + "/x", "{\"metadata\": \"x\", \"data\": {\"name\": \"n\"}}"), 400, "INVALID_ARGUMENT", "resource.metadata", null),
        new Case("data @type of another type", put(ARTISTS + "/x", "{\"data\": {\"@type\": \"type.googleapis.com/setpoint.demo.v2.Album\", \"name\": \"A\"}}"),
            400, "INVALID_ARGUMENT", "resource.data", null),
        new Case("body id with another name", put(ARTISTS + "/x", "{\"id\": {\"name\": \"y\"}, \"data\": {\"name\": \"n\"}}"), 400, "INVALID_ARGUMENT", "resource.id.name", null),
        new Case("body id with another type", put(ARTISTS + "/x", "{\"id\": {\"type\": {\"group\": \"demo\", \"groupVersion\": \"v2\", \"kind\": \"Album\"}}, \"data\": {\"name\": \"n\"}}"),
            400, "INVALID_ARGUMENT", "resource.id.type", null),
        new Case("body namespace against the query", put(ARTISTS + "/x?namespace=a", "{\"id\": {\"tenancy\": {\"namespace\": \"b\"}}, \"data\": {\"name\": \"n\"}}"),
            400, "INVALID_ARGUMENT", "resource.id.tenancy.namespace", null),
        new Case("body version against the query", put(ARTISTS + "/existing?version=5", "{\"version\": \"6\", \"data\": {\"name\": \"n\"}}"),
            400, "INVALID_ARGUMENT", "resource.version", null),
        // ---- Write: content types ----
        new Case("text/plain body", put(ARTISTS + "/x", "text/plain", BodyPublishers.ofString(valid())), 415, "INVALID_ARGUMENT", null, "text/plain"),
        new Case("form body (curl -d without -H)", put(ARTISTS + "/x", "application/x-www-form-urlencoded", BodyPublishers.ofString(valid())),
            415, "INVALID_ARGUMENT", null, "application/json"),
        new Case("JSON in Latin-1", put(ARTISTS + "/x", "application/json; charset=iso-8859-1", BodyPublishers.ofString(valid())),
            415, "INVALID_ARGUMENT", null, "UTF-8"),
        new Case("Content-Type that does not parse", put(ARTISTS + "/x", ";;;", BodyPublishers.ofString(valid())),
            415, "INVALID_ARGUMENT", null, "application/json"),
        // ---- bytes that are no UTF-8, and lone surrogates ----
        new Case("overlong UTF-8 in the path (C0 AF, an overlong /)", get(ARTISTS + "/a%C0%AFb"), 400, "INVALID_ARGUMENT", "name", "UTF-8"),
        new Case("lone surrogate in the path", get(ARTISTS + "/a%ED%A0%80b"), 400, "INVALID_ARGUMENT", "name", "UTF-8"),
        new Case("overlong UTF-8 in the kind", get("/api/demo/v2/Art%C0%AFist"), 400, "INVALID_ARGUMENT", "kind", "UTF-8"),
        new Case("overlong UTF-8 in a query parameter", get(ARTISTS + "?namespace=a%C0%AFb"), 400, "INVALID_ARGUMENT", "namespace", "UTF-8"),
        new Case("overlong UTF-8 in the body", put(ARTISTS + "/x", Http.JSON_TYPE, BodyPublishers.ofByteArray(utf8With("{\"data\": {\"name\": \"a#b\"}}", 0xC0, 0xAF))),
            400, "INVALID_ARGUMENT", "resource", "UTF-8"),
        new Case("encoded surrogate in the body", put(ARTISTS + "/x", Http.JSON_TYPE, BodyPublishers.ofByteArray(utf8With("{\"data\": {\"name\": \"a#b\"}}", 0xED, 0xA0, 0x80))),
            400, "INVALID_ARGUMENT", "resource", "UTF-8"),
        new Case("lone surrogate escaped in a body string", put(ARTISTS + "/x", "{\"data\": {\"name\": \"a\\ud800b\"}}"),
            400, "INVALID_ARGUMENT", "resource.data.name", "surrogate"),
        new Case("lone surrogate escaped in a body key", put(ARTISTS + "/x", "{\"metadata\": {\"k\\udc00\": \"v\"}, \"data\": {\"name\": \"n\"}}"),
            400, "INVALID_ARGUMENT", "resource", "surrogate"),
        new Case("lone surrogate escaped in a status", status("{\"conditions\": [{\"type\": \"Accepted\", \"message\": \"\\ud800\"}]}"),
            400, "INVALID_ARGUMENT", "status.conditions[0].message", "surrogate"),
        // ---- what the HTTP layer answers before any route: JSON all the same ----
        new Case("path that climbs out of its root", get("/api/../metrics"), 400, "INVALID_ARGUMENT", null, null),
        new Case("URI over the length limit", get(ARTISTS + "/" + "u".repeat(10_000)), 414, "INVALID_ARGUMENT", null, null),
        new Case("body over the server limit outside /api", () -> http.send("PUT", "/healthz", Http.JSON_TYPE,
            BodyPublishers.ofByteArray(new byte[3 * LiveAgent.MAX_REQUEST_BYTES]), Map.of()), 413, "RESOURCE_EXHAUSTED", null, "limit"),
        new Case("no such path", get("/nope"), 404, "NOT_FOUND", null, null),
        // ---- Write: data, metadata and version rules of the handler ----
        new Case("missing data", put(ARTISTS + "/x", "{}"), 400, "INVALID_ARGUMENT", "resource.data", null),
        new Case("artist without name (validate hook)", put(ARTISTS + "/x", artist("")), 400, "INVALID_ARGUMENT", "resource.data.name", null),
        new Case("album track without name", put("/api/demo/v2/Album/x", "{\"data\": {\"name\": \"A\", \"tracks\": [{\"name\": \"one\"}, {}]}}"),
            400, "INVALID_ARGUMENT", "resource.data.tracks[1].name", null),
        new Case("metadata key starting with a dash", put(ARTISTS + "/x", "{\"metadata\": {\"-bad\": \"v\"}, \"data\": {\"name\": \"n\"}}"),
            400, "INVALID_ARGUMENT", "resource.metadata", null),
        new Case("metadata value too long", put(ARTISTS + "/x", "{\"metadata\": {\"k\": \"" + "v".repeat(4097) + "\"}, \"data\": {\"name\": \"n\"}}"),
            400, "INVALID_ARGUMENT", "resource.metadata", null),
        new Case("too many metadata entries", put(ARTISTS + "/x", "{\"metadata\": {"
            + IntStream.range(0, 65).mapToObj(i -> "\"k" + i + "\": \"v\"").collect(Collectors.joining(", ")) + "}, \"data\": {\"name\": \"n\"}}"),
            400, "INVALID_ARGUMENT", "resource.metadata", null),
        new Case("deletionTimestamp set by a client", put(ARTISTS + "/x", "{\"metadata\": {\"deletionTimestamp\": \"2026-01-01T00:00:00Z\"}, \"data\": {\"name\": \"n\"}}"),
            400, "INVALID_ARGUMENT", "resource.metadata", null),
        new Case("finalizer that is no name", put(ARTISTS + "/x", "{\"metadata\": {\"finalizers\": \"ok.example/a -bad-\"}, \"data\": {\"name\": \"n\"}}"),
            400, "INVALID_ARGUMENT", "resource.metadata", null),
        new Case("version that is not a number", put(ARTISTS + "/x?version=abc", valid()), 400, "INVALID_ARGUMENT", "resource.version", null),
        // ---- Write: owner ----
        new Case("owner without uid", put(ARTISTS + "/x", withOwner("{\"type\": {\"group\": \"demo\", \"groupVersion\": \"v1\", \"kind\": \"RecordLabel\"}, \"name\": \"label\"}")),
            400, "INVALID_ARGUMENT", "resource.owner.uid", null),
        new Case("owner of unknown type", put(ARTISTS + "/x", withOwner("{\"type\": {\"group\": \"nope\", \"groupVersion\": \"v1\", \"kind\": \"Thing\"}, \"name\": \"t\", \"uid\": \"" + VALID_ULID + "\"}")),
            400, "INVALID_ARGUMENT", "resource.owner.type", null),
        new Case("owner that does not exist", put(ARTISTS + "/x", withOwner("{\"type\": {\"group\": \"demo\", \"groupVersion\": \"v1\", \"kind\": \"RecordLabel\"}, \"name\": \"ghost\", \"uid\": \"" + VALID_ULID + "\"}")),
            400, "INVALID_ARGUMENT", "resource.owner", null),
        new Case("owner that is itself", put(ARTISTS + "/x", withOwner("{\"type\": " + ARTIST_TYPE + ", \"name\": \"x\", \"uid\": \"" + VALID_ULID + "\"}")),
            400, "INVALID_ARGUMENT", "resource.owner", null),
        new Case("owner change on update", () -> http.put("/api/demo/v2/Album/owned", withOwner("{\"type\": " + ARTIST_TYPE
            + ", \"name\": \"other\", \"uid\": \"" + existing.getId().getUid() + "\"}")), 400, "INVALID_ARGUMENT", "resource.owner", null),
        // ---- Write: status and CAS ----
        new Case("status on create", put(ARTISTS + "/x", "{\"status\": {\"k\": {}}, \"data\": {\"name\": \"n\"}}"), 400, "INVALID_ARGUMENT", "resource.status", null),
        new Case("status change on update", put(ARTISTS + "/existing", "{\"status\": {\"k\": {}}, \"data\": {\"name\": \"Changed\"}}"),
            400, "INVALID_ARGUMENT", "resource.status", null),
        new Case("version that does not match", () -> http.put(ARTISTS + "/existing?version=" + existing.getVersion() + "0", artist("Changed")),
            409, "ABORTED", null, "version"),
        new Case("version on a resource that does not exist", put(ARTISTS + "/absent?version=7", valid()), 409, "ABORTED", null, "version"),
        new Case("uid of another incarnation", put(ARTISTS + "/existing?uid=" + VALID_ULID, artist("Changed")), 412, "FAILED_PRECONDITION", null, "uid"),
        new Case("uid on a create", put(ARTISTS + "/absent?uid=" + VALID_ULID, valid()), 404, "NOT_FOUND", null, "absent"),
        // ---- Sizes ----
        new Case("resource over the size limit", put(ARTISTS + "/big", bigArtist(20 << 10)), 413, "RESOURCE_EXHAUSTED", null, "bytes"),
        new Case("body over the request limit (Content-Length)", put(ARTISTS + "/huge", bigArtist(LiveAgent.MAX_REQUEST_BYTES + 1024)),
            413, "RESOURCE_EXHAUSTED", null, "limit"),
        new Case("body over the request limit (chunked)", put(ARTISTS + "/huge", Http.JSON_TYPE,
            BodyPublishers.fromPublisher(BodyPublishers.ofString(bigArtist(LiveAgent.MAX_REQUEST_BYTES + 1024)))), 413, "RESOURCE_EXHAUSTED", null, "limit"),
        // ---- Read ----
        new Case("read of unknown type", get("/api/demo/v1/Artist/x"), 404, "NOT_FOUND", null, "unknown type demo.v1.Artist"),
        new Case("read with a wildcard", get(ARTISTS + "/x?partition=*&namespace=*"), 400, "INVALID_ARGUMENT", "id.tenancy.partition", null),
        new Case("read of a malformed name", get(ARTISTS + "/Miles"), 400, "INVALID_ARGUMENT", "id.name", null),
        new Case("read of what does not exist", get(ARTISTS + "/absent"), 404, "NOT_FOUND", null, "absent"),
        new Case("read with consistent=maybe", get(ARTISTS + "/existing?consistent=maybe"), 400, "INVALID_ARGUMENT", "consistent", null),
        new Case("read with a version parameter", get(ARTISTS + "/existing?version=1"), 400, "INVALID_ARGUMENT", "version", null),
        // ---- WriteStatus ----
        new Case("status without uid", put(ARTISTS + "/existing/status/demo.setpoint.io/artist", condition(ok)), 400, "INVALID_ARGUMENT", "id.uid", null),
        new Case("status for another incarnation", put(ARTISTS + "/existing/status/k?uid=" + VALID_ULID, condition(ok)), 412, "FAILED_PRECONDITION", null, "uid"),
        new Case("status of what does not exist", put(ARTISTS + "/absent/status/k?uid=" + VALID_ULID, condition(ok)), 404, "NOT_FOUND", null, "absent"),
        new Case("status key with spaces", status("my%20key", "", condition(ok)), 400, "INVALID_ARGUMENT", "key", null),
        new Case("status key ending in a slash", status("demo.setpoint.io%2F", "", condition(ok)), 400, "INVALID_ARGUMENT", "key", null),
        new Case("status missing", status(""), 400, "INVALID_ARGUMENT", "status", null),
        new Case("status that is not JSON", status("conditions"), 400, "INVALID_ARGUMENT", "status", "not valid JSON"),
        new Case("unknown field in a status", status("{\"phase\": \"Ready\"}"), 400, "INVALID_ARGUMENT", "status.phase", null),
        new Case("unknown field in a condition", status(condition("\"type\": \"Accepted\", \"severity\": \"high\"")),
            400, "INVALID_ARGUMENT", "status.conditions[0].severity", null),
        new Case("condition type twice", status("{\"conditions\": [{" + ok + "}, {" + ok + "}]}"), 400, "INVALID_ARGUMENT", "status.conditions[1].type", null),
        new Case("condition type in lower case", status(condition("\"type\": \"accepted\"")), 400, "INVALID_ARGUMENT", "status.conditions[0].type", null),
        new Case("condition state out of range", status(condition("\"type\": \"Accepted\", \"state\": 7")), 400, "INVALID_ARGUMENT", "status.conditions[0].state", null),
        new Case("condition state of unknown name", status(condition("\"type\": \"Accepted\", \"state\": \"STATE_MAYBE\"")),
            400, "INVALID_ARGUMENT", "status.conditions[0].state", null),
        new Case("condition reason with spaces", status(condition("\"type\": \"Accepted\", \"reason\": \"not ok\"")), 400, "INVALID_ARGUMENT", "status.conditions[0].reason", null),
        new Case("observed generation that is no ULID", status("{\"observedGeneration\": \"gen-1\"}"), 400, "INVALID_ARGUMENT", "status.observed_generation", null),
        new Case("status version that does not match", () -> http.put(ARTISTS + "/existing/status/k?uid=" + existing.getId().getUid()
            + "&version=" + existing.getVersion() + "0", condition(ok)), 409, "ABORTED", null, "version"),
        new Case("status as form data", () -> http.send("PUT", ARTISTS + "/existing/status/k?uid=" + existing.getId().getUid(),
            "application/x-www-form-urlencoded", BodyPublishers.ofString(condition(ok)), Map.of()), 415, "INVALID_ARGUMENT", null, "application/json"),
        // ---- List, owned ----
        new Case("list with a bad name prefix", get(ARTISTS + "?name_prefix=Big"), 400, "INVALID_ARGUMENT", "name_prefix", null),
        new Case("list page too large", get(ARTISTS + "?page_size=1001"), 400, "INVALID_ARGUMENT", "page_size", null),
        new Case("list page size beyond int32", get(ARTISTS + "?page_size=4294967295"), 400, "INVALID_ARGUMENT", "page_size", null),
        new Case("list page size that is no number", get(ARTISTS + "?page_size=ten"), 400, "INVALID_ARGUMENT", "page_size", null),
        new Case("list page size that is negative", get(ARTISTS + "?page_size=-1"), 400, "INVALID_ARGUMENT", "page_size", null),
        new Case("list with a forged page token", get(ARTISTS + "?page_token=bm90LWEtdG9rZW4"), 400, "INVALID_ARGUMENT", "page_token", null),
        new Case("list cluster type with a partition", get("/api/demo/v1/Executive?partition=p"), 400, "INVALID_ARGUMENT", "tenancy.partition", null),
        new Case("list with an unknown parameter", get(ARTISTS + "?limit=10"), 400, "INVALID_ARGUMENT", "limit", null),
        new Case("owned of what does not exist", get(ARTISTS + "/absent/owned"), 404, "NOT_FOUND", null, "absent"),
        new Case("owned with a malformed uid", get(ARTISTS + "/existing/owned?uid=nope"), 400, "INVALID_ARGUMENT", "owner.uid", null),
        // ---- Delete ----
        new Case("delete with a malformed version", delete(ARTISTS + "/existing?version=v1"), 400, "INVALID_ARGUMENT", "version", null),
        new Case("delete with a version that does not match", () -> http.delete(ARTISTS + "/existing?version=" + existing.getVersion() + "0"),
            409, "ABORTED", null, "version"),
        new Case("delete of unknown type", delete("/api/demo/v3/Song/x"), 404, "NOT_FOUND", null, "unknown type demo.v3.Song"),
        new Case("delete with a wildcard", delete(ARTISTS + "/existing?namespace=*"), 400, "INVALID_ARGUMENT", "id.tenancy.namespace", null),
        // ---- Watch ----
        new Case("watch of unknown type", get("/api/demo/v3/Song?watch=true"), 404, "NOT_FOUND", null, "unknown type demo.v3.Song"),
        new Case("watch with a bad name prefix", get(ARTISTS + "?watch=true&name_prefix=A*"), 400, "INVALID_ARGUMENT", "name_prefix", null),
        new Case("watch with a page size", get(ARTISTS + "?watch=true&page_size=10"), 400, "INVALID_ARGUMENT", "page_size", null),
        new Case("watch with a Last-Event-ID that is no revision", get(ARTISTS + "?watch=true", Map.of("Last-Event-ID", "yesterday")),
            400, "INVALID_ARGUMENT", "Last-Event-ID", null),
        new Case("watch from a Last-Event-ID the store has not reached", get(ARTISTS + "?watch=true", Map.of("Last-Event-ID", "1000000")),
            400, "INVALID_ARGUMENT", "Last-Event-ID", "revision 1000000 is ahead of this store, which is at revision"),
        new Case("watch from Last-Event-ID 2^64-1", get(ARTISTS + "?watch=true", Map.of("Last-Event-ID", "18446744073709551615")),
            400, "INVALID_ARGUMENT", "Last-Event-ID", "revision 18446744073709551615 is ahead"),
        new Case("watch from a Last-Event-ID beyond 2^64-1", get(ARTISTS + "?watch=true", Map.of("Last-Event-ID", "18446744073709551616")),
            400, "INVALID_ARGUMENT", "Last-Event-ID", "store revision"),
        new Case("watch=maybe", get(ARTISTS + "?watch=maybe"), 400, "INVALID_ARGUMENT", "watch", null));
  }
}
