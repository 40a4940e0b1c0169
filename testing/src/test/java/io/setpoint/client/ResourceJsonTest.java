package io.setpoint.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.Any;
import io.setpoint.api.Ids;
import io.setpoint.api.Tenancies;
import io.setpoint.api.v1.Condition;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Scope;
import io.setpoint.api.v1.Status;
import io.setpoint.demo.DemoTypes;
import io.setpoint.demo.v2.Album;
import io.setpoint.demo.v2.Artist;
import io.setpoint.demo.v2.Genre;
import io.setpoint.demo.v2.Track;
import io.setpoint.server.Agent;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Documents to resources and back, with the descriptors a real agent serves. */
@Timeout(60)
class ResourceJsonTest {
  private static Agent agent;
  private static SetpointClient client;
  private static ResourceJson json;

  @BeforeAll
  static void start() {
    agent = Agent.builder().port(0).acls(false).types(DemoTypes::register).start();
    client = SetpointClient.connect("127.0.0.1:" + agent.port());
    json = ResourceJson.of(client.types());
  }

  @AfterAll
  static void stop() {
    client.close();
    agent.close();
  }

  @Test
  void parsesADocumentWithTheStringTypeIntoAResourceWithTypedData() throws Exception {
    Resource parsed = json.parse("""
        {
          "id": {"type": "demo.v2.Artist", "name": "miles", "tenancy": {"partition": "p1", "namespace": "jazz"}},
          "version": "7",
          "metadata": {"team": "jazz"},
          "data": {"name": "Miles Davis", "genre": "GENRE_JAZZ", "groupMembers": {"miles": "trumpet"}}
        }
        """);

    assertThat(parsed.getId()).isEqualTo(Ids.of(DemoTypes.ARTIST, Tenancies.of("p1", "jazz"), "miles"));
    assertThat(parsed.getVersion()).isEqualTo("7");
    assertThat(parsed.getMetadataMap()).containsEntry("team", "jazz");
    assertThat(parsed.getData().getTypeUrl()).isEqualTo("type.googleapis.com/setpoint.demo.v2.Artist");
    assertThat(parsed.getData().unpack(Artist.class)).isEqualTo(Artist.newBuilder()
        .setName("Miles Davis").setGenre(Genre.GENRE_JAZZ).putGroupMembers("miles", "trumpet").build());
  }

  @Test
  void acceptsTheObjectTypeFormProtoFieldNamesAnOwnerAndAMatchingAtType() throws Exception {
    Resource parsed = json.parse("""
        {
          "id": {"type": {"group": "demo", "group_version": "v2", "kind": "Album"}, "name": "kind-of-blue"},
          "owner": {"type": "demo.v2.Artist", "name": "miles", "uid": "01JABCDEFGHJKMNPQRSTVWXYZ0"},
          "data": {"@type": "type.googleapis.com/setpoint.demo.v2.Album",
                   "name": "Kind of Blue", "year_of_release": 1959, "tracks": [{"name": "So What", "lengthSeconds": 562}]}
        }
        """);

    assertThat(parsed.getId().getType()).isEqualTo(DemoTypes.ALBUM);
    assertThat(parsed.getId().getName()).isEqualTo("kind-of-blue");
    assertThat(parsed.getOwner().getType()).isEqualTo(DemoTypes.ARTIST);
    assertThat(parsed.getOwner().getUid()).isEqualTo("01JABCDEFGHJKMNPQRSTVWXYZ0");
    assertThat(parsed.getData().unpack(Album.class)).isEqualTo(Album.newBuilder()
        .setName("Kind of Blue").setYearOfRelease(1959)
        .addTracks(Track.newBuilder().setName("So What").setLengthSeconds(562)).build());
  }

  @Test
  void aDocumentWithoutDataGetsEmptyDataOfTheType() {
    Resource parsed = json.parse("{\"id\": {\"type\": \"demo.v1.Executive\", \"name\": \"ceo\"}}");

    assertThat(parsed.getData()).isEqualTo(Any.pack(io.setpoint.demo.v1.Executive.getDefaultInstance()));
  }

  @Test
  void printsTheSameShapeWithTheServerFieldsAndRoundTrips() {
    Resource stored = client.write(json.parse("""
        {"id": {"type": "demo.v2.Artist", "name": "printed"}, "metadata": {"a": "<b>"}, "data": {"name": "Printed"}}
        """));
    Resource withStatus = client.writeStatus(stored.getId(), "demo", Status.newBuilder()
        .setObservedGeneration(stored.getGeneration())
        .addConditions(Condition.newBuilder().setType("Accepted").setState(Condition.State.STATE_TRUE))
        .build());

    String printed = json.print(withStatus);

    assertThat(printed)
        .contains("\"type\": \"demo.v2.Artist\"")
        .contains("\"uid\": \"" + stored.getId().getUid() + "\"")
        .contains("\"version\": \"" + withStatus.getVersion() + "\"")
        .contains("\"generation\": \"" + stored.getGeneration() + "\"")
        .contains("\"genre\": \"GENRE_DISCO\"")
        .contains("\"state\": \"STATE_TRUE\"")
        .contains("\"a\": \"<b>\"")
        .doesNotContain("@type");
    assertThat(printed.indexOf("\"id\"")).isLessThan(printed.indexOf("\"data\""));
    assertThat(json.parse(printed)).isEqualTo(withStatus);
  }

  @Test
  void knowsTheServersTypes() {
    assertThat(json.type(DemoTypes.RECORD_LABEL)).hasValueSatisfying(
        t -> assertThat(t.getScope()).isEqualTo(Scope.SCOPE_PARTITION));
    assertThat(json.type(io.setpoint.api.Types.of("demo", "v9", "Nope"))).isEmpty();
    // The four demo types and the two core types every server registers.
    assertThat(json.types()).extracting(t -> io.setpoint.api.Types.format(t.getType())).containsExactlyInAnyOrder(
        "demo.v2.Artist", "demo.v2.Album", "demo.v1.RecordLabel", "demo.v1.Executive", "core.v1.Event", "core.v1.Lease", "core.v1.Tombstone", "core.v1.TypeDefinition",
        "acl.v1.Policy", "acl.v1.Token", "acl.v1.Bootstrap");
  }

  @Test
  void rejectsBadDocumentsSayingWhatIsWrong() {
    assertRejected("[1, 2]", "must be a JSON object, not an array");
    assertRejected("{\"id\": ", "not valid JSON");
    assertRejected("{\"data\": {}}", "id is required");
    assertRejected("{\"id\": {\"name\": \"x\"}}", "id.type is required");
    assertRejected("{\"id\": {\"type\": \"Artist\", \"name\": \"x\"}}", "id.type: type \"Artist\" must be written group.version.Kind");
    assertRejected("{\"id\": {\"type\": 3, \"name\": \"x\"}}", "id.type must be");
    assertRejected("{\"id\": {\"type\": \"demo.v9.Nope\", \"name\": \"x\"}}",
        "unknown type demo.v9.Nope; the server serves acl.v1.Bootstrap, acl.v1.Policy, acl.v1.Token, core.v1.Event, core.v1.Lease, core.v1.Tombstone, core.v1.TypeDefinition, demo.v1.Executive, demo.v1.RecordLabel, demo.v2.Album, demo.v2.Artist");
    assertRejected("{\"id\": {\"type\": \"demo.v2.Artist\", \"name\": \"x\"}, \"data\": {\"nme\": \"typo\"}}",
        "invalid demo.v2.Artist document", "nme");
    assertRejected("{\"id\": {\"type\": \"demo.v2.Artist\", \"name\": \"x\"}, \"data\": {\"genre\": \"GENRE_OPERA\"}}",
        "GENRE_OPERA");
    assertRejected("{\"id\": {\"type\": \"demo.v2.Artist\", \"name\": \"x\"}, \"data\": \"Miles\"}",
        "data must be an object with the fields of setpoint.demo.v2.Artist, not a string");
    assertRejected(
        "{\"id\": {\"type\": \"demo.v2.Artist\", \"name\": \"x\"}, \"data\": {\"@type\": \"type.googleapis.com/setpoint.demo.v2.Album\"}}",
        "data.@type type.googleapis.com/setpoint.demo.v2.Album does not match demo.v2.Artist");
  }

  private static void assertRejected(String document, String... fragments) {
    assertThatThrownBy(() -> json.parse(document))
        .as(document)
        .isInstanceOf(IllegalArgumentException.class)
        .message()
        .contains(fragments);
  }
}
