package io.setpoint.server;

import static io.setpoint.server.AclFixture.rule;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpRequest.BodyPublishers;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Every route of the HTTP gateway with ACLs on, called with an allowed token, a denied one and
 * none (or an unknown one): 200, 403 naming the permission, 401; refused calls change nothing.
 */
class HttpAclTest {
  private static final String ARTISTS = "/api/demo/v2/Artist";

  @RegisterExtension static final LiveAgent live = LiveAgent.withAcls();
  private static AclFixture acl;
  private static Http http;
  private static String reader;
  private static String writer;
  private static String outsider;

  @BeforeAll
  static void tokens() {
    acl = new AclFixture(live);
    http = new Http(live.agent().port());
    reader = acl.tokenWith("reader", "", rule("demo.v2.Artist", "", "read", "list"));
    writer = acl.tokenWith("writer", "", rule("demo.*.*", "", "read", "write", "list"));
    outsider = acl.tokenWith("outsider", "", rule("demo.v1.Executive", "", "read"));
    put(acl.management(), ARTISTS + "/miles", "{\"data\": {\"name\": \"Miles\"}}", 200);
  }

  private static Map<String, String> bearer(String token) {
    Map<String, String> headers = new HashMap<>();
    if (token != null) {
      headers.put("Authorization", "Bearer " + token);
    }
    return headers;
  }

  private static JsonNode send(String method, String token, String path, String body, int status) {
    byte[] before = status == 200 ? null : live.storeBytes();
    Http.Answer answer = http.send(method, path, body == null ? null : Http.JSON_TYPE,
        body == null ? BodyPublishers.noBody() : BodyPublishers.ofString(body), bearer(token));
    assertThat(answer.status()).as(method + " " + path + ": " + answer.text()).isEqualTo(status);
    if (before != null) {
      assertThat(live.storeBytes()).as("a refused request changes nothing").isEqualTo(before);
    }
    return answer.json();
  }

  private static JsonNode get(String token, String path, int status) {
    return send("GET", token, path, null, status);
  }

  private static JsonNode put(String token, String path, String body, int status) {
    return send("PUT", token, path, body, status);
  }

  /** The route refuses callers without a token, or with an unknown one, with 401. */
  private static void anonymous(String method, String path, String body) {
    JsonNode none = send(method, null, path, body, 401);
    assertThat(none.get("code").asText()).isEqualTo("UNAUTHENTICATED");
    assertThat(none.get("message").asText()).contains("send an Authorization: Bearer <token> header");
    assertThat(send(method, "spt_unknown", path, body, 401).get("message").asText()).startsWith("unknown ACL token");
  }

  private static void denied(JsonNode body, String message) {
    assertThat(body.get("code").asText()).isEqualTo("PERMISSION_DENIED");
    assertThat(body.get("message").asText()).isEqualTo(message);
  }

  @Test
  void list() {
    assertThat(get(reader, ARTISTS, 200).get("resources")).isNotEmpty();
    denied(get(outsider, ARTISTS, 403), "permission denied: the token lacks \"list\" on demo.v2.Artist in default/default");
    anonymous("GET", ARTISTS, null);
  }

  @Test
  void read() {
    assertThat(get(reader, ARTISTS + "/miles", 200).at("/data/name").asText()).isEqualTo("Miles");
    denied(get(outsider, ARTISTS + "/miles", 403),
        "permission denied: the token lacks \"read\" on demo.v2.Artist default/default/miles");
    anonymous("GET", ARTISTS + "/miles", null);
  }

  @Test
  void write() {
    String body = "{\"data\": {\"name\": \"Nina\"}}";
    denied(put(reader, ARTISTS + "/nina", body, 403),
        "permission denied: the token lacks \"write\" on demo.v2.Artist default/default/nina");
    anonymous("PUT", ARTISTS + "/nina", body);
    assertThat(put(writer, ARTISTS + "/nina", body, 200).get("version").asText()).isNotEmpty();
  }

  @Test
  void delete() {
    put(acl.management(), ARTISTS + "/gone", "{\"data\": {\"name\": \"Gone\"}}", 200);
    denied(send("DELETE", reader, ARTISTS + "/gone", null, 403),
        "permission denied: the token lacks \"write\" on demo.v2.Artist default/default/gone");
    anonymous("DELETE", ARTISTS + "/gone", null);
    send("DELETE", writer, ARTISTS + "/gone", null, 200);
    get(reader, ARTISTS + "/gone", 404);
  }

  @Test
  void writeStatus() {
    JsonNode artist = get(reader, ARTISTS + "/miles", 200);
    String path = ARTISTS + "/miles/status/test.setpoint.io/http?uid=" + artist.at("/id/uid").asText();
    String body = "{\"observedGeneration\": \"" + artist.get("generation").asText() + "\"}";
    denied(put(reader, path, body, 403), "permission denied: the token lacks \"write\" on demo.v2.Artist default/default/miles");
    anonymous("PUT", path, body);
    assertThat(put(writer, path, body, 200).at("/status").has("test.setpoint.io/http")).isTrue();
  }

  @Test
  void owned() {
    JsonNode artist = get(reader, ARTISTS + "/miles", 200);
    com.fasterxml.jackson.databind.node.ObjectNode album = Http.JSON.createObjectNode();
    album.set("owner", artist.get("id"));
    album.putObject("data").put("name", "Owned");
    put(acl.management(), "/api/demo/v2/Album/miles-owned", album.toString(), 200);

    assertThat(get(writer, ARTISTS + "/miles/owned", 200).get("resources")).hasSize(1);
    assertThat(get(reader, ARTISTS + "/miles/owned", 200).path("resources")).as("reader may not read albums").isEmpty();
    denied(get(outsider, ARTISTS + "/miles/owned", 403),
        "permission denied: the token lacks \"read\" on demo.v2.Artist default/default/miles");
    anonymous("GET", ARTISTS + "/miles/owned", null);
  }

  @Test
  void typesAndOpenApiNeedAnyValidToken() {
    assertThat(get(outsider, "/api/types", 200).toString()).contains("demo.v2.Artist");
    assertThat(get(outsider, "/api/openapi.json", 200).get("openapi").asText()).startsWith("3.1");
    anonymous("GET", "/api/types", null);
    anonymous("GET", "/api/openapi.json", null);
    anonymous("GET", "/api/no/such/route/at/all", null);
  }

  @Test
  void watchAllowedDeniedAnonymous() throws Exception {
    try (SseClient watch = SseClient.open(http, ARTISTS + "?watch=true&name_prefix=miles", bearer(reader))) {
      assertThat(watch.status()).isEqualTo(200);
      assertThat(watch.next("upsert").json().at("/upsert/resource/id/name").asText()).isEqualTo("miles");
      watch.next("end_of_snapshot");
    }
    try (SseClient denied = SseClient.open(http, ARTISTS + "?watch=true", bearer(outsider))) {
      assertThat(denied.status()).isEqualTo(403);
    }
    try (SseClient anonymous = SseClient.open(http, ARTISTS + "?watch=true", Map.of())) {
      assertThat(anonymous.status()).isEqualTo(401);
    }
  }

  @Test
  void aWatchWhoseTokenIsDeletedEndsWithAnErrorEvent() throws Exception {
    String doomed = acl.tokenWith("doomed", "", rule("demo.v2.Artist", "", "read", "list"));
    try (SseClient watch = SseClient.open(http, ARTISTS + "?watch=true&namespace=sse-revoke", bearer(doomed))) {
      assertThat(watch.status()).isEqualTo(200);
      watch.next("end_of_snapshot");

      acl.deleteToken("doomed");

      SseClient.Event error = watch.next("error");
      assertThat(error.json().get("code").asText()).isEqualTo("UNAUTHENTICATED");
      assertThat(error.json().get("message").asText()).isEqualTo("the ACL token was deleted");
      watch.awaitEnd();
    }
  }

  @Test
  void theBearerSchemeIsCaseInsensitive() {
    Http.Answer answer = http.send("GET", ARTISTS + "/miles", null, BodyPublishers.noBody(),
        Map.of("Authorization", "bearer " + reader));
    assertThat(answer.status()).as(answer.text()).isEqualTo(200);
  }
}
