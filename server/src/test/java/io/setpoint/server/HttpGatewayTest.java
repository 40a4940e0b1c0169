package io.setpoint.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.setpoint.api.Ids;
import io.setpoint.api.v1.ReadRequest;
import io.setpoint.api.v1.Resource;
import io.setpoint.demo.DemoTypes;
import io.setpoint.demo.v2.Artist;
import io.setpoint.demo.v2.Genre;
import java.net.http.HttpRequest;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The HTTP/JSON gateway's routes over a real socket, against a live agent with the demo types. */
class HttpGatewayTest {
  @RegisterExtension static final LiveAgent live = new LiveAgent();
  private static Http http;

  private static final String ARTISTS = "/api/demo/v2/Artist";

  @BeforeAll
  static void client() {
    http = new Http(live.agent().port());
  }

  private static JsonNode ok(Http.Answer answer) {
    assertThat(answer.status()).as("status of %s", answer.text()).isEqualTo(200);
    assertThat(answer.contentType()).startsWith("application/json");
    return answer.json();
  }

  @Test
  void createReadUpdateAndDeleteWithCompareAndSwap() {
    JsonNode created = ok(http.put(ARTISTS + "/miles",
        "{\"metadata\": {\"team\": \"jazz\"}, \"data\": {\"name\": \"Miles Davis\", \"genre\": \"GENRE_JAZZ\"}}"));
    assertThat(created.at("/id/type").toString()).isEqualTo("{\"group\":\"demo\",\"groupVersion\":\"v2\",\"kind\":\"Artist\"}");
    assertThat(created.at("/id/name").asText()).isEqualTo("miles");
    assertThat(created.at("/id/tenancy/partition").asText()).isEqualTo("default");
    assertThat(created.at("/id/uid").asText()).hasSize(26);
    assertThat(created.at("/metadata/team").asText()).isEqualTo("jazz");
    assertThat(created.get("data").toString()).isEqualTo("{\"name\":\"Miles Davis\",\"genre\":\"GENRE_JAZZ\"}");
    String version = created.get("version").asText();

    // The gRPC face sees the same resource, with its data as the registered message.
    Resource stored = live.stub().read(ReadRequest.newBuilder().setId(Ids.of(DemoTypes.ARTIST, "miles")).build()).getResource();
    assertThat(stored.getVersion()).isEqualTo(version);
    assertThat(stored.getData().getTypeUrl()).isEqualTo("type.googleapis.com/setpoint.demo.v2.Artist");
    assertThat(stored.getId().getUid()).isEqualTo(created.at("/id/uid").asText());

    assertThat(ok(http.get(ARTISTS + "/miles"))).isEqualTo(created);

    JsonNode updated = ok(http.put(ARTISTS + "/miles?version=" + version,
        "{\"metadata\": {\"team\": \"jazz\"}, \"data\": {\"name\": \"Miles Davis\", \"genre\": \"GENRE_BLUES\"}}"));
    assertThat(updated.get("version").asText()).isNotEqualTo(version);
    assertThat(updated.get("generation").asText()).isNotEqualTo(created.get("generation").asText());

    Http.Answer stale = http.put(ARTISTS + "/miles?version=" + version, "{\"data\": {\"name\": \"Stale\"}}");
    assertThat(stale.status()).isEqualTo(409);
    assertThat(stale.json().get("code").asText()).isEqualTo("ABORTED");

    assertThat(http.delete(ARTISTS + "/miles?version=" + version).status()).isEqualTo(409);
    assertThat(ok(http.delete(ARTISTS + "/miles?version=" + updated.get("version").asText())).toString()).isEqualTo("{}");
    Http.Answer gone = http.get(ARTISTS + "/miles");
    assertThat(gone.status()).isEqualTo(404);
    assertThat(gone.json().get("code").asText()).isEqualTo("NOT_FOUND");
    assertThat(ok(http.delete(ARTISTS + "/miles")).toString()).as("deleting what is absent succeeds").isEqualTo("{}");
  }

  @Test
  void aDryRunPutAnswersWhatWouldBeStoredAndStoresNothing() {
    // The demo's mutate hook fills in a missing genre: the answer shows the resource as admitted.
    JsonNode admitted = ok(http.put(ARTISTS + "/dry?dry_run=true", "{\"data\": {\"name\": \"Dry\"}}"));
    assertThat(admitted.at("/data/genre").asText()).isEqualTo("GENRE_DISCO");
    assertThat(http.get(ARTISTS + "/dry").status()).as("nothing stored").isEqualTo(404);

    Http.Answer invalid = http.put(ARTISTS + "/dry?dry_run=true", "{\"data\": {\"name\": \"\"}}");
    assertThat(invalid.status()).isEqualTo(400);
    assertThat(invalid.json().get("message").asText()).contains("resource.data.name");
    Http.Answer badFlag = http.put(ARTISTS + "/dry?dry_run=maybe", "{\"data\": {\"name\": \"Dry\"}}");
    assertThat(badFlag.status()).isEqualTo(400);
    assertThat(badFlag.json().get("message").asText()).contains("dry_run").contains("true or false");
    assertThat(http.get(ARTISTS + "/dry").status()).isEqualTo(404);
  }

  @Test
  void aDeleteWithAnIdempotencyKeySentAgainLeavesWhatWasCreatedSince() {
    ok(http.put(ARTISTS + "/key", "{\"data\": {\"name\": \"First\"}}"));
    Map<String, String> key = Map.of("Idempotency-Key", "delete-key-1");
    assertThat(http.send("DELETE", ARTISTS + "/key", null, HttpRequest.BodyPublishers.noBody(), key).status())
        .isEqualTo(200);
    JsonNode again = ok(http.put(ARTISTS + "/key", "{\"data\": {\"name\": \"Again\"}}"));

    assertThat(http.send("DELETE", ARTISTS + "/key", null, HttpRequest.BodyPublishers.noBody(), key).status())
        .isEqualTo(200);
    assertThat(ok(http.get(ARTISTS + "/key"))).isEqualTo(again);
    Http.Answer bad = http.send("DELETE", ARTISTS + "/key", null, HttpRequest.BodyPublishers.noBody(),
        Map.of("Idempotency-Key", "has space"));
    assertThat(bad.status()).isEqualTo(400);
    assertThat(bad.json().get("message").asText()).contains("Idempotency-Key");
  }

  @Test
  void aDocumentReadCanBeWrittenBackAndItsVersionGuardsIt() {
    ok(http.put(ARTISTS + "/nina", "{\"data\": {\"name\": \"Nina Simone\"}}"));
    ObjectNode doc = (ObjectNode) ok(http.get(ARTISTS + "/nina"));
    ((ObjectNode) doc.get("data")).put("description", "High Priestess of Soul");

    JsonNode written = ok(http.put(ARTISTS + "/nina", doc.toString()));
    assertThat(written.at("/data/description").asText()).isEqualTo("High Priestess of Soul");
    assertThat(written.get("version").asText()).isNotEqualTo(doc.get("version").asText());

    Http.Answer again = http.put(ARTISTS + "/nina", doc.toString());
    assertThat(again.status()).as("the document's version is a compare-and-swap").isEqualTo(409);

    // An @type naming the type's own message is accepted too.
    ((ObjectNode) written.get("data")).put("@type", "type.googleapis.com/setpoint.demo.v2.Artist");
    assertThat(http.put(ARTISTS + "/nina", written.toString()).status()).isEqualTo(200);
  }

  @Test
  void tenancyComesFromQueryParameters() {
    JsonNode created = ok(http.put(ARTISTS + "/ella?partition=team-a&namespace=ns1", "{\"data\": {\"name\": \"Ella\"}}"));
    assertThat(created.at("/id/tenancy").toString()).isEqualTo("{\"partition\":\"team-a\",\"namespace\":\"ns1\"}");
    assertThat(http.get(ARTISTS + "/ella").status()).isEqualTo(404);
    assertThat(ok(http.get(ARTISTS + "/ella?partition=team-a&namespace=ns1&consistent=true"))).isEqualTo(created);
    JsonNode all = ok(http.get(ARTISTS + "?partition=*&namespace=*&name_prefix=ella"));
    assertThat(all.get("resources")).hasSize(1);

    ok(http.put("/api/demo/v1/RecordLabel/blue-note?partition=team-a", "{\"data\": {\"name\": \"Blue Note\"}}"));
    assertThat(ok(http.get("/api/demo/v1/RecordLabel/blue-note?partition=team-a")).at("/id/tenancy").toString())
        .isEqualTo("{\"partition\":\"team-a\"}");
  }

  @Test
  void listsPageThroughOneSnapshot() {
    for (String name : List.of("page-a", "page-b", "page-c")) {
      ok(http.put(ARTISTS + "/" + name, "{\"data\": {\"name\": \"" + name + "\"}}"));
    }
    JsonNode first = ok(http.get(ARTISTS + "?name_prefix=page-&page_size=2"));
    assertThat(first.get("resources")).hasSize(2);
    assertThat(first.get("revision").asText()).matches("[0-9]+");
    String token = first.get("nextPageToken").asText();
    JsonNode second = ok(http.get(ARTISTS + "?name_prefix=page-&page_size=2&page_token=" + token));
    assertThat(second.get("resources")).hasSize(1);
    assertThat(second.has("nextPageToken")).isFalse();
    assertThat(second.get("revision")).isEqualTo(first.get("revision"));
    List<String> names = new ArrayList<>();
    first.get("resources").forEach(r -> names.add(r.at("/id/name").asText()));
    second.get("resources").forEach(r -> names.add(r.at("/id/name").asText()));
    assertThat(names).containsExactly("page-a", "page-b", "page-c");
    assertThat(first.at("/resources/0/data/name").asText()).isEqualTo("page-a");
    assertThat(first.at("/resources/0/data").has("@type")).isFalse();
  }

  @Test
  void statusWritesNeedTheUidAndStampTimes() {
    JsonNode artist = ok(http.put(ARTISTS + "/billie", "{\"data\": {\"name\": \"Billie Holiday\"}}"));
    String uid = artist.at("/id/uid").asText();
    String status = "{\"observedGeneration\": \"" + artist.get("generation").asText()
        + "\", \"conditions\": [{\"type\": \"Accepted\", \"state\": \"STATE_TRUE\", \"reason\": \"OK\"}]}";

    JsonNode written = ok(http.put(ARTISTS + "/billie/status/demo.setpoint.io/artist?uid=" + uid, status));
    JsonNode entry = written.at("/status/demo.setpoint.io~1artist");
    assertThat(entry.get("updatedAt").asText()).endsWith("Z");
    assertThat(entry.at("/conditions/0/lastTransitionTime").asText()).endsWith("Z");
    assertThat(entry.at("/conditions/0/state").asText()).isEqualTo("STATE_TRUE");
    assertThat(written.get("generation")).as("a status write keeps the generation").isEqualTo(artist.get("generation"));

    // The key's slash may also be sent encoded: the same entry.
    JsonNode encoded = ok(http.put(ARTISTS + "/billie/status/demo.setpoint.io%2Fartist?uid=" + uid, status));
    assertThat(encoded.get("status").size()).isEqualTo(1);
  }

  @Test
  void ownedListsTheDirectChildrenOfTheCurrentIncarnation() {
    JsonNode artist = ok(http.put(ARTISTS + "/herbie", "{\"data\": {\"name\": \"Herbie Hancock\"}}"));
    ObjectNode album = Http.JSON.createObjectNode();
    album.set("owner", artist.get("id"));
    album.putObject("data").put("name", "Head Hunters").put("yearOfRelease", 1973);
    JsonNode child = ok(http.put("/api/demo/v2/Album/head-hunters", album.toString()));
    assertThat(child.get("owner")).isEqualTo(artist.get("id"));

    JsonNode owned = ok(http.get(ARTISTS + "/herbie/owned"));
    assertThat(owned.get("resources")).hasSize(1);
    assertThat(owned.at("/resources/0/id/name").asText()).isEqualTo("head-hunters");
    assertThat(owned.at("/resources/0/data/yearOfRelease").asInt()).isEqualTo(1973);
    assertThat(ok(http.get(ARTISTS + "/herbie/owned?uid=" + artist.at("/id/uid").asText()))).isEqualTo(owned);
  }

  @Test
  void ownedComesAPageAtATimeInNameOrderAndATokenIsGoodForItsOwnerOnly() {
    JsonNode artist = ok(http.put(ARTISTS + "/wayne", "{\"data\": {\"name\": \"Wayne Shorter\"}}"));
    for (String title : List.of("speak-no-evil", "juju", "night-dreamer", "adams-apple", "schizophrenia")) {
      ObjectNode album = Http.JSON.createObjectNode();
      album.set("owner", artist.get("id"));
      album.putObject("data").put("name", title);
      ok(http.put("/api/demo/v2/Album/" + title, album.toString()));
    }

    List<String> names = new ArrayList<>();
    String token = "";
    int pages = 0;
    do {
      JsonNode page = ok(http.get(ARTISTS + "/wayne/owned?page_size=2" + (token.isEmpty() ? "" : "&page_token=" + token)));
      page.get("resources").forEach(r -> names.add(r.at("/id/name").asText()));
      token = page.path("nextPageToken").asText("");
      pages++;
    } while (!token.isEmpty());
    assertThat(pages).isEqualTo(3);
    assertThat(names).containsExactly("adams-apple", "juju", "night-dreamer", "schizophrenia", "speak-no-evil");

    ok(http.put(ARTISTS + "/other", "{\"data\": {\"name\": \"Other\"}}"));
    String firstToken = ok(http.get(ARTISTS + "/wayne/owned?page_size=2")).get("nextPageToken").asText();
    Http.Answer foreign = http.get(ARTISTS + "/other/owned?page_token=" + firstToken);
    assertThat(foreign.status()).isEqualTo(400);
    assertThat(foreign.json().get("message").asText()).contains("page_token").contains("this owner");
    Http.Answer tooLarge = http.get(ARTISTS + "/wayne/owned?page_size=100000");
    assertThat(tooLarge.status()).isEqualTo(400);
    assertThat(tooLarge.json().get("message").asText()).contains("page_size");
  }

  @Test
  void writesThroughGrpcAreReadableOverHttp() {
    live.write(DemoTypes.ARTIST, "dizzy", Artist.newBuilder().setName("Dizzy").setGenre(Genre.GENRE_JAZZ)
        .putGroupMembers("trumpet", "Dizzy").addDiscography("Bebop").build());
    JsonNode doc = ok(http.get(ARTISTS + "/dizzy"));
    assertThat(doc.get("data").toString()).isEqualTo(
        "{\"name\":\"Dizzy\",\"genre\":\"GENRE_JAZZ\",\"groupMembers\":{\"trumpet\":\"Dizzy\"},\"discography\":[\"Bebop\"]}");
  }

  @Test
  void typesListsEachServedTypeWithTheJsonSchemaOfItsData() {
    JsonNode types = ok(http.get("/api/types")).get("types");
    JsonNode artist = null;
    Set<String> names = new HashSet<>();
    for (JsonNode t : types) {
      names.add(t.get("type").asText());
      if (t.get("type").asText().equals("demo.v2.Artist")) {
        artist = t;
      }
    }
    assertThat(names).contains("demo.v2.Artist", "demo.v2.Album", "demo.v1.RecordLabel", "demo.v1.Executive");
    assertThat(artist).isNotNull();
    assertThat(artist.get("path").asText()).isEqualTo("/api/demo/v2/Artist");
    assertThat(artist.get("scope").asText()).isEqualTo("SCOPE_NAMESPACE");
    assertThat(artist.get("dataMessage").asText()).isEqualTo("setpoint.demo.v2.Artist");
    JsonNode schema = artist.get("schema");
    assertThat(schema.get("$schema").asText()).contains("2020-12");
    assertThat(schema.get("$ref").asText()).isEqualTo("#/$defs/setpoint.demo.v2.Artist");
    JsonNode properties = schema.at("/$defs/setpoint.demo.v2.Artist/properties");
    assertThat(properties.at("/name/type").asText()).isEqualTo("string");
    assertThat(properties.at("/genre/enum").toString()).contains("\"GENRE_JAZZ\"");
    assertThat(properties.at("/groupMembers/additionalProperties/type").asText()).isEqualTo("string");
    assertThat(properties.at("/discography/items/type").asText()).isEqualTo("string");
    JsonNode album = schema(types, "demo.v2.Album");
    assertThat(album.at("/$defs/setpoint.demo.v2.Album/properties/tracks/items/$ref").asText())
        .isEqualTo("#/$defs/setpoint.demo.v2.Track");
    assertThat(album.at("/$defs/setpoint.demo.v2.Track/properties/lengthSeconds/type").asText()).isEqualTo("integer");
  }

  private static JsonNode schema(JsonNode types, String type) {
    for (JsonNode t : types) {
      if (t.get("type").asText().equals(type)) {
        return t.get("schema");
      }
    }
    throw new AssertionError("no type " + type);
  }

  @Test
  void openApiDocumentDescribesEveryTypesRoutes() {
    JsonNode doc = ok(http.get("/api/openapi.json"));
    assertThat(doc.get("openapi").asText()).startsWith("3.");
    assertThat(doc.at("/info/title").isTextual()).isTrue();
    assertThat(doc.at("/info/version").isTextual()).isTrue();
    JsonNode paths = doc.get("paths");
    assertThat(paths.at("/~1api~1demo~1v2~1Artist/get/operationId").asText()).isEqualTo("listDemoV2Artist");
    JsonNode item = paths.get("/api/demo/v2/Artist/{name}");
    assertThat(item.has("get") && item.has("put") && item.has("delete")).isTrue();
    assertThat(item.at("/put/requestBody/content/application~1json/schema/$ref").asText())
        .isEqualTo("#/components/schemas/demo.v2.Artist");
    assertThat(paths.has("/api/demo/v2/Artist/{name}/status/{key}")).isTrue();
    assertThat(paths.has("/api/demo/v2/Artist/{name}/owned")).isTrue();
    assertThat(paths.has("/api/demo/v1/Executive")).isTrue();
    List<String> tenancyParams = new ArrayList<>();
    paths.at("/~1api~1demo~1v1~1RecordLabel/get/parameters").forEach(p -> tenancyParams.add(p.get("name").asText()));
    assertThat(tenancyParams).contains("partition").doesNotContain("namespace");
    assertThat(doc.at("/components/schemas/demo.v2.Artist/properties/data/$ref").asText())
        .isEqualTo("#/components/schemas/setpoint.demo.v2.Artist");

    // Shape: every operation has an id (unique) and responses; every $ref resolves.
    Set<String> operationIds = new HashSet<>();
    paths.properties().forEach(path -> path.getValue().properties().forEach(op -> {
      if (!op.getKey().equals("parameters")) {
        assertThat(op.getValue().has("responses")).as("%s %s has responses", op.getKey(), path.getKey()).isTrue();
        assertThat(operationIds.add(op.getValue().get("operationId").asText())).as("unique operationId").isTrue();
      }
    }));
    List<String> refs = new ArrayList<>();
    collectRefs(doc, refs);
    assertThat(refs).isNotEmpty();
    for (String ref : refs) {
      assertThat(ref).startsWith("#/components/schemas/");
      assertThat(doc.at("/components/schemas").has(ref.substring("#/components/schemas/".length())))
          .as("%s resolves", ref).isTrue();
    }
  }

  private static void collectRefs(JsonNode node, List<String> out) {
    if (node.isObject()) {
      node.properties().forEach(e -> {
        if (e.getKey().equals("$ref")) {
          out.add(e.getValue().asText());
        } else {
          collectRefs(e.getValue(), out);
        }
      });
    } else if (node.isArray()) {
      node.forEach(n -> collectRefs(n, out));
    }
  }

  @Test
  void theAgentsOtherEndpointsAreUntouched() {
    assertThat(http.get("/healthz").status()).isEqualTo(200);
    assertThat(http.get("/metrics").status()).isEqualTo(200);
  }
}
