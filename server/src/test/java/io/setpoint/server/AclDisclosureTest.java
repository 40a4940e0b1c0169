package io.setpoint.server;

import static io.setpoint.server.AclFixture.rule;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.protobuf.Any;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.setpoint.api.Ids;
import io.setpoint.api.Tenancies;
import io.setpoint.api.v1.DeleteRequest;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.ListRequest;
import io.setpoint.api.v1.ListResponse;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Tenancy;
import io.setpoint.api.v1.Type;
import io.setpoint.api.v1.WriteRequest;
import io.setpoint.api.v1.WriteStatusRequest;
import io.setpoint.demo.DemoTypes;
import io.setpoint.demo.v2.Album;
import io.setpoint.demo.v2.Artist;
import java.net.URLEncoder;
import java.net.http.HttpRequest.BodyPublishers;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.function.Executable;

/**
 * What a token that may not read a resource can learn about it, over gRPC and HTTP against a real
 * agent with ACLs on: nothing from page tokens, nothing from WriteStatus, and no stored value from
 * the errors of its writes.
 */
class AclDisclosureTest {
  private static final Type ARTIST = DemoTypes.ARTIST;
  private static final Type ALBUM = DemoTypes.ALBUM;
  /** The listing the paging tests walk, holding only these three artists. */
  private static final Tenancy SECRETS = Tenancies.of("default", "secrets");
  private static final List<String> NAMES = List.of("m-secret", "n-hidden", "o-private");
  private static final String ARTISTS = "/api/demo/v2/Artist";
  private static final String ALBUMS = "/api/demo/v2/Album";

  @RegisterExtension static final LiveAgent live = LiveAgent.withAcls();
  /** Another cluster, with the same listing: its page tokens are sealed under another key. */
  @RegisterExtension static final LiveAgent other = new LiveAgent();
  private static AclFixture acl;
  private static Http http;
  private static String lister;
  private static String listerReader;
  private static String artistWriter;
  private static String albumWriter;
  private static String albumReadWriter;
  private static Resource owner;
  private static Resource owned;
  private static Resource unowned;
  private static String foreign;

  @BeforeAll
  static void setUp() {
    acl = new AclFixture(live);
    http = new Http(live.agent().port());
    lister = acl.tokenWith("lister", "", rule("demo.v2.Artist", "", "list"));
    listerReader = acl.tokenWith("lister-reader", "", rule("demo.v2.Artist", "", "list", "read"));
    artistWriter = acl.tokenWith("artist-writer", "", rule("demo.v2.Artist", "", "write"));
    albumWriter = acl.tokenWith("album-writer", "", rule("demo.v2.Album", "", "write"));
    albumReadWriter = acl.tokenWith("album-read-writer", "", rule("demo.v2.Album", "", "read", "write"));
    for (String name : NAMES) {
      write(acl.management(), artist(name, SECRETS));
    }
    owner = write(acl.management(), artist("m-secret", Tenancies.of("default", "default")));
    owned = write(acl.management(), album("owned").toBuilder().setOwner(owner.getId()).build());
    unowned = write(acl.management(), album("unowned"));
    for (String name : NAMES) {
      other.write(artist(name, SECRETS));
    }
    foreign = other.stub().list(listing("")).getNextPageToken();
  }

  // ---- page tokens ----

  @Test
  void aListOnlyTokenPagingOneByOneOverGrpcLearnsNoName() {
    List<String> tokens = new ArrayList<>();
    String token = "";
    do {
      ListResponse page = acl.stub(lister).list(listing(token));
      assertThat(page.getResourcesList()).as("resources it may not read are left out").isEmpty();
      token = page.getNextPageToken();
      if (!token.isEmpty()) {
        tokens.add(token);
      }
    } while (!token.isEmpty());
    assertThat(tokens).hasSize(NAMES.size() - 1);
    tokens.forEach(AclDisclosureTest::assertOpaque);
  }

  @Test
  void aListOnlyTokenPagingOneByOneOverHttpLearnsNoName() {
    List<String> tokens = new ArrayList<>();
    String token = "";
    do {
      JsonNode page = get(lister, ARTISTS + "?namespace=secrets&page_size=1&page_token=" + token, 200);
      assertThat(page.path("resources")).isEmpty();
      token = page.path("nextPageToken").asText("");
      if (!token.isEmpty()) {
        tokens.add(token);
      }
    } while (!token.isEmpty());
    assertThat(tokens).hasSize(NAMES.size() - 1);
    tokens.forEach(AclDisclosureTest::assertOpaque);
  }

  @Test
  void aReaderPagesThroughEveryNameWithTheSameTokens() {
    List<String> seen = new ArrayList<>();
    String token = "";
    do {
      ListResponse page = acl.stub(listerReader).list(listing(token));
      page.getResourcesList().forEach(r -> seen.add(r.getId().getName()));
      token = page.getNextPageToken();
    } while (!token.isEmpty());
    assertThat(seen).isEqualTo(NAMES);
  }

  @Test
  void tamperedTruncatedForgedAndForeignPageTokensAreRefusedOverGrpc() {
    String token = acl.stub(lister).list(listing("")).getNextPageToken();
    for (String bad : badTokens(token)) {
      StatusRuntimeException refused = refused(() -> acl.stub(lister).list(listing(bad)));
      assertThat(refused.getStatus().getCode()).as(bad).isEqualTo(Status.Code.INVALID_ARGUMENT);
      assertThat(refused.getStatus().getDescription()).as(bad).startsWith("page_token: ");
    }
    // Issued for one listing, refused by another: another namespace, another name prefix.
    ListRequest otherNamespace = listing(token).toBuilder().setTenancy(Tenancies.of("default", "default")).build();
    ListRequest otherPrefix = listing(token).toBuilder().setNamePrefix("m").build();
    for (ListRequest other : List.of(otherNamespace, otherPrefix)) {
      StatusRuntimeException refused = refused(() -> acl.stub(listerReader).list(other));
      assertThat(refused.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
      assertThat(refused.getStatus().getDescription()).startsWith("page_token: ");
    }
  }

  @Test
  void tamperedTruncatedForgedAndForeignPageTokensAreRefusedOverHttp() {
    String token = get(lister, ARTISTS + "?namespace=secrets&page_size=1", 200).get("nextPageToken").asText();
    for (String bad : badTokens(token)) {
      JsonNode refused = get(lister, ARTISTS + "?namespace=secrets&page_size=1&page_token="
          + URLEncoder.encode(bad, StandardCharsets.UTF_8), 400);
      assertThat(refused.get("code").asText()).isEqualTo("INVALID_ARGUMENT");
      assertThat(refused.get("message").asText()).as(bad).startsWith("page_token: ");
    }
    JsonNode refused = get(lister, ARTISTS + "?namespace=default&page_size=1&page_token=" + token, 400);
    assertThat(refused.get("message").asText()).startsWith("page_token: ");
  }

  /**
   * A token altered in one character, one cut short, one forged in the old clear format, one of
   * another cluster for the same listing, and one that is not base64.
   */
  private static List<String> badTokens(String token) {
    char[] flipped = token.toCharArray();
    int middle = flipped.length / 2;
    flipped[middle] = flipped[middle] == 'A' ? 'B' : 'A';
    String forged = Base64.getUrlEncoder().withoutPadding()
        .encodeToString("1:demo\0Artist\0default\0secrets\0m-secret".getBytes(StandardCharsets.UTF_8));
    return List.of(new String(flipped), token.substring(0, token.length() - 4), forged, foreign, "x!");
  }

  /** Nothing of the listing, the type or any name can be read from the token, decoded or not. */
  private static void assertOpaque(String token) {
    String decoded = new String(Base64.getUrlDecoder().decode(token), StandardCharsets.ISO_8859_1);
    for (String clue : List.of("secret", "hidden", "private", "Artist", "secrets", "default")) {
      assertThat(decoded).as("decoded token").doesNotContain(clue);
      assertThat(token).doesNotContain(clue);
    }
  }

  private static ListRequest listing(String token) {
    return ListRequest.newBuilder().setType(ARTIST).setTenancy(SECRETS).setPageSize(1).setPageToken(token).build();
  }

  // ---- WriteStatus ----

  @Test
  void writeStatusWithoutReadIsDeniedAlikeForStoredAndMissingNamesOverGrpc() {
    String uid = owner.getId().getUid();
    for (String token : List.of(artistWriter, albumWriter)) {
      String stored = writeStatusDenied(token, Ids.of(ARTIST, "m-secret"), "01ARZ3NDEKTSV4RRFFQ69G5FAV");
      String storedRightUid = writeStatusDenied(token, Ids.of(ARTIST, "m-secret"), uid);
      String missing = writeStatusDenied(token, Ids.of(ARTIST, "m-nobody"), "01ARZ3NDEKTSV4RRFFQ69G5FAV");
      assertThat(stored).isEqualTo(storedRightUid).isEqualTo(missing.replace("m-nobody", "m-secret"))
          .doesNotContain(uid);
    }
    // The ACL types too: a token may not probe for the names of tokens.
    String lister = writeStatusDenied(albumWriter, Ids.of(AclTypes.TOKEN, Tenancies.CLUSTER, "lister"),
        "01ARZ3NDEKTSV4RRFFQ69G5FAV");
    String none = writeStatusDenied(albumWriter, Ids.of(AclTypes.TOKEN, Tenancies.CLUSTER, "no-such-token"),
        "01ARZ3NDEKTSV4RRFFQ69G5FAV");
    assertThat(lister).isEqualTo(none.replace("no-such-token", "lister"));
  }

  @Test
  void writeStatusWithoutReadIsDeniedAlikeForStoredAndMissingNamesOverHttp() {
    String body = "{\"observedGeneration\": \"01ARZ3NDEKTSV4RRFFQ69G5FAV\"}";
    String uid = owner.getId().getUid();
    JsonNode stored = put(artistWriter, ARTISTS + "/m-secret/status/test.setpoint.io/probe?uid=01ARZ3NDEKTSV4RRFFQ69G5FAV", body, 403);
    JsonNode storedRightUid = put(artistWriter, ARTISTS + "/m-secret/status/test.setpoint.io/probe?uid=" + uid, body, 403);
    JsonNode missing = put(artistWriter, ARTISTS + "/m-nobody/status/test.setpoint.io/probe?uid=01ARZ3NDEKTSV4RRFFQ69G5FAV", body, 403);
    assertThat(stored.get("code").asText()).isEqualTo("PERMISSION_DENIED");
    assertThat(stored).isEqualTo(storedRightUid);
    assertThat(stored.toString()).isEqualTo(missing.toString().replace("m-nobody", "m-secret")).doesNotContain(uid);
  }

  private static String writeStatusDenied(String token, ID id, String uid) {
    StatusRuntimeException e = refused(() -> acl.stub(token).writeStatus(WriteStatusRequest.newBuilder()
        .setId(id.toBuilder().setUid(uid)).setKey("test.setpoint.io/probe")
        .setStatus(io.setpoint.api.v1.Status.newBuilder().setObservedGeneration("01ARZ3NDEKTSV4RRFFQ69G5FAV")).build()));
    assertThat(e.getStatus().getCode()).as(e.getStatus().getDescription()).isEqualTo(Status.Code.PERMISSION_DENIED);
    return e.getStatus().getDescription();
  }

  // ---- write errors ----

  @Test
  void anOwnerChangeTellsTheStoredOwnerOnlyToReadersOverGrpc() {
    Resource orphaned = owned.toBuilder().clearOwner().setVersion("").build();
    String hidden = writeRefused(albumWriter, orphaned, Status.Code.INVALID_ARGUMENT);
    assertThat(hidden).startsWith("resource.owner: cannot change after create")
        .doesNotContain("m-secret").doesNotContain(owner.getId().getUid());
    String shown = writeRefused(albumReadWriter, orphaned, Status.Code.INVALID_ARGUMENT);
    assertThat(shown).contains("m-secret").contains(owner.getId().getUid());
  }

  @Test
  void anOwnerChangeTellsTheStoredOwnerOnlyToReadersOverHttp() {
    String body = "{\"data\": {\"name\": \"owned\"}}";
    String hidden = put(albumWriter, ALBUMS + "/owned", body, 400).get("message").asText();
    assertThat(hidden).contains("resource.owner").doesNotContain("m-secret").doesNotContain(owner.getId().getUid());
    String shown = put(albumReadWriter, ALBUMS + "/owned", body, 400).get("message").asText();
    assertThat(shown).contains("m-secret").contains(owner.getId().getUid());
  }

  @Test
  void aVersionOrUidMismatchTellsTheStoredValueOnlyToReadersOverGrpc() {
    String version = unowned.getVersion();
    String uid = unowned.getId().getUid();
    Resource stale = unowned.toBuilder().setVersion("999999").build();
    assertThat(writeRefused(albumWriter, stale, Status.Code.ABORTED))
        .startsWith("resource.version 999999 does not match").doesNotContainPattern("\\b" + version + "\\b");
    assertThat(writeRefused(albumReadWriter, stale, Status.Code.ABORTED)).endsWith("stored version " + version);

    Resource otherUid = unowned.toBuilder().setVersion("")
        .setId(unowned.getId().toBuilder().setUid("01ARZ3NDEKTSV4RRFFQ69G5FAV")).build();
    assertThat(writeRefused(albumWriter, otherUid, Status.Code.FAILED_PRECONDITION))
        .startsWith("resource.id.uid").doesNotContain(uid);
    assertThat(writeRefused(albumReadWriter, otherUid, Status.Code.FAILED_PRECONDITION)).contains(uid);

    DeleteRequest delete = DeleteRequest.newBuilder().setId(unowned.getId()).setVersion("999999").build();
    StatusRuntimeException hidden = refused(() -> acl.stub(albumWriter).delete(delete));
    assertThat(hidden.getStatus().getCode()).isEqualTo(Status.Code.ABORTED);
    assertThat(hidden.getStatus().getDescription()).doesNotContainPattern("\\b" + version + "\\b");
    assertThat(refused(() -> acl.stub(albumReadWriter).delete(delete)).getStatus().getDescription())
        .endsWith("stored version " + version);
  }

  @Test
  void aVersionMismatchTellsTheStoredVersionOnlyToReadersOverHttp() {
    String version = unowned.getVersion();
    String body = "{\"data\": {\"name\": \"unowned\"}}";
    JsonNode hidden = put(albumWriter, ALBUMS + "/unowned?version=999999", body, 409);
    assertThat(hidden.get("code").asText()).isEqualTo("ABORTED");
    assertThat(hidden.get("message").asText()).contains("resource.version").doesNotContainPattern("\\b" + version + "\\b");
    assertThat(put(albumReadWriter, ALBUMS + "/unowned?version=999999", body, 409).get("message").asText())
        .endsWith("stored version " + version);
  }

  @Test
  void namingAnOwnerNeedsReadOnItWhetherOrNotItExists() {
    ID missing = owner.getId().toBuilder().setName("m-nobody").build();
    for (ID ownerId : List.of(owner.getId(), missing)) {
      Resource child = album("probe-" + ownerId.getName()).toBuilder().setOwner(ownerId).build();
      String denied = writeRefused(albumWriter, child, Status.Code.PERMISSION_DENIED);
      assertThat(denied).isEqualTo("permission denied: the token lacks \"read\" on demo.v2.Artist default/default/"
          + ownerId.getName());
    }
  }

  private static String writeRefused(String token, Resource resource, Status.Code code) {
    StatusRuntimeException e = refused(() -> acl.stub(token).write(WriteRequest.newBuilder().setResource(resource).build()));
    assertThat(e.getStatus().getCode()).as(e.getStatus().getDescription()).isEqualTo(code);
    return e.getStatus().getDescription();
  }

  // ---- helpers ----

  private static StatusRuntimeException refused(Executable call) {
    StatusRuntimeException e = catchThrowableOfType(StatusRuntimeException.class, call::execute);
    assertThat(e).as("the call was refused").isNotNull();
    return e;
  }

  private static Resource artist(String name, Tenancy tenancy) {
    return Resource.newBuilder().setId(Ids.of(ARTIST, tenancy, name))
        .setData(Any.pack(Artist.newBuilder().setName(name).build())).build();
  }

  private static Resource album(String name) {
    return Resource.newBuilder().setId(Ids.of(ALBUM, Tenancies.of("default", "default"), name))
        .setData(Any.pack(Album.newBuilder().setName(name).build())).build();
  }

  private static Resource write(String token, Resource resource) {
    return acl.stub(token).write(WriteRequest.newBuilder().setResource(resource).build()).getResource();
  }

  private static JsonNode get(String token, String path, int status) {
    return send("GET", token, path, null, status);
  }

  private static JsonNode put(String token, String path, String body, int status) {
    return send("PUT", token, path, body, status);
  }

  private static JsonNode send(String method, String token, String path, String body, int status) {
    Http.Answer answer = http.send(method, path, body == null ? null : Http.JSON_TYPE,
        body == null ? BodyPublishers.noBody() : BodyPublishers.ofString(body), Map.of("Authorization", "Bearer " + token));
    assertThat(answer.status()).as(method + " " + path + ": " + answer.text()).isEqualTo(status);
    return answer.json();
  }
}
