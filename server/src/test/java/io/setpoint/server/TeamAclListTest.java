package io.setpoint.server;

import static io.setpoint.server.AclFixture.scoped;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.setpoint.api.Tenancies;
import io.setpoint.api.v1.ListRequest;
import io.setpoint.api.v1.ReadRequest;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Tenancy;
import io.setpoint.api.v1.WatchEvent;
import io.setpoint.api.v1.WatchListRequest;
import io.setpoint.api.v1.WriteRequest;
import io.setpoint.demo.DemoTypes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Lists and watches across tenancies with tenancy-scoped rules, over gRPC and HTTP (the routes
 * and query the web UI uses: {@code partition=*&namespace=*}, {@code watch=true}): each token sees
 * only the items of the tenancies it may list and read, a listing in a tenancy it may not list is
 * refused naming it, and open watches follow policy changes.
 */
class TeamAclListTest {
  private static final String ARTISTS = "/api/demo/v2/Artist";
  private static final Tenancy EVERYWHERE = Tenancies.of("*", "*");

  @RegisterExtension static final LiveAgent live = LiveAgent.withAcls();
  private static AclFixture acl;
  private static Map<String, String> tokens;
  private static Http http;

  @BeforeAll
  static void policiesTokensAndArtists() {
    acl = new AclFixture(live);
    http = new Http(live.agent().port());
    tokens = TeamPolicies.create(acl);
    write(Tenancies.of("default", "team-a"), "list-a");
    write(Tenancies.of("default", "team-b"), "list-b");
    write(Tenancies.of("default", "default"), "list-d");
    write(Tenancies.of("other", "team-a"), "list-o");
  }

  private static Resource write(Tenancy tenancy, String name) {
    return acl.stub(acl.management()).write(WriteRequest.newBuilder()
        .setResource(TeamAclMatrixTest.resource(DemoTypes.ARTIST, tenancy, name)).build()).getResource();
  }

  private static List<String> grpcList(String token, Tenancy tenancy, String prefix) {
    return acl.stub(tokens.get(token)).list(ListRequest.newBuilder().setType(DemoTypes.ARTIST).setTenancy(tenancy)
        .setNamePrefix(prefix).build()).getResourcesList().stream().map(r -> r.getId().getName()).sorted().toList();
  }

  private static Http.Answer httpList(String token, String partition, String namespace, String prefix) {
    return TeamAclMatrixTest.send(http, tokens.get(token), "GET",
        ARTISTS + "?partition=" + partition + "&namespace=" + namespace + "&name_prefix=" + prefix, null);
  }

  private static List<String> names(Http.Answer answer) {
    assertThat(answer.status()).as(answer.text()).isEqualTo(200);
    List<String> names = new ArrayList<>();
    answer.json().path("resources").forEach(r -> names.add(r.at("/id/name").asText()));
    return names.stream().sorted().toList();
  }

  private static void listsEverywhere(String token, String... expected) {
    assertThat(grpcList(token, EVERYWHERE, "list-")).as(token + " over gRPC").containsExactly(expected);
    assertThat(names(httpList(token, "*", "*", "list-"))).as(token + " over HTTP").containsExactly(expected);
  }

  @Test
  void aListingInEveryTenancyShowsEachTokenOnlyItsOwn() {
    listsEverywhere("team-a", "list-a");
    listsEverywhere("team-b", "list-b");
    listsEverywhere("teams-reader", "list-a", "list-b", "list-o");
    listsEverywhere("partition-ops", "list-a", "list-b", "list-d");
    listsEverywhere("not-b", "list-a", "list-d", "list-o");
    listsEverywhere("list-a-read-all", "list-a");
    listsEverywhere("management", "list-a", "list-b", "list-d", "list-o");
    // Namespace team-a of every partition: team-a's rule names partition default only.
    assertThat(grpcList("team-a", Tenancies.of("*", "team-a"), "list-")).containsExactly("list-a");
    assertThat(grpcList("teams-reader", Tenancies.of("*", "team-a"), "list-")).containsExactly("list-a", "list-o");
  }

  @Test
  void aListingInATenancyTheTokenMayNotListIsRefusedNamingIt() {
    refused("team-a", "default", "team-b", "default/team-b");
    refused("team-a", "other", "*", "other/*");
    refused("team-b", "*", "team-a", "*/team-a");
    // A deny rule refuses every listing it covers, and only filters one it overlaps.
    refused("not-b", "default", "team-b", "default/team-b");
    refused("not-b", "*", "team-b", "*/team-b");
    assertThat(grpcList("not-b", Tenancies.of("default", "*"), "list-")).containsExactly("list-a", "list-d");
  }

  private static void refused(String token, String partition, String namespace, String where) {
    String message = "permission denied: the token lacks \"list\" on demo.v2.Artist in " + where;
    assertThatThrownBy(() -> grpcList(token, Tenancies.of(partition, namespace), ""))
        .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
          assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
          assertThat(e.getStatus().getDescription()).isEqualTo(message);
        });
    Http.Answer answer = httpList(token, partition, namespace, "");
    assertThat(answer.status()).as(answer.text()).isEqualTo(403);
    assertThat(answer.json().get("message").asText()).isEqualTo(message);
    WatchProbe watch = WatchProbe.open(acl.async(tokens.get(token)), watch(Tenancies.of(partition, namespace), ""));
    try {
      Status status = watch.end(Duration.ofSeconds(10));
      assertThat(status.getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
      assertThat(status.getDescription()).isEqualTo(message);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
    try (SseClient sse = SseClient.open(http,
        ARTISTS + "?watch=true&partition=" + partition + "&namespace=" + namespace, bearer(tokens.get(token)))) {
      assertThat(sse.status()).isEqualTo(403);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  private static WatchListRequest watch(Tenancy tenancy, String prefix) {
    return WatchListRequest.newBuilder().setType(DemoTypes.ARTIST).setTenancy(tenancy).setNamePrefix(prefix).build();
  }

  private static Map<String, String> bearer(String token) {
    return Map.of("Authorization", "Bearer " + token);
  }

  /** The next upsert's name, after skipping the snapshot's end. */
  private static String nextUpsert(WatchProbe watch) throws InterruptedException {
    WatchEvent event = watch.next();
    assertThat(event.getEventCase()).as(event.toString()).isEqualTo(WatchEvent.EventCase.UPSERT);
    return event.getUpsert().getResource().getId().getName();
  }

  private static String nextUpsert(SseClient sse) throws InterruptedException {
    JsonNode event = sse.next("upsert").json();
    return event.at("/upsert/resource/id/name").asText();
  }

  @Test
  void watchesInEveryTenancyShowEachTeamOnlyItsOwnEvents() throws Exception {
    WatchProbe grpcA = WatchProbe.open(acl.async(tokens.get("team-a")), watch(EVERYWHERE, "watch-"));
    try (SseClient sseA = SseClient.open(http, ARTISTS + "?watch=true&partition=*&namespace=*&name_prefix=watch-",
            bearer(tokens.get("team-a")));
        SseClient sseB = SseClient.open(http, ARTISTS + "?watch=true&partition=*&namespace=*&name_prefix=watch-",
            bearer(tokens.get("team-b")))) {
      assertThat(grpcA.next().getEventCase()).isEqualTo(WatchEvent.EventCase.END_OF_SNAPSHOT);
      sseA.next("end_of_snapshot");
      sseB.next("end_of_snapshot");

      // Written in this order, each watch's first event is its own: the others' were skipped.
      write(Tenancies.of("default", "default"), "watch-d");
      write(Tenancies.of("default", "team-b"), "watch-b");
      write(Tenancies.of("default", "team-a"), "watch-a");
      write(Tenancies.of("default", "team-b"), "watch-b-last");

      assertThat(nextUpsert(grpcA)).isEqualTo("watch-a");
      assertThat(nextUpsert(sseA)).isEqualTo("watch-a");
      assertThat(nextUpsert(sseB)).isEqualTo("watch-b");
      assertThat(nextUpsert(sseB)).as("team-a's artist was skipped").isEqualTo("watch-b-last");
    }
  }

  @Test
  void openWatchesFollowAChangeOfTheTenancyTheirPolicyNames() throws Exception {
    String mover = acl.tokenWith("mover", "", TeamPolicies.teamRule("team-a"));
    WatchProbe grpc = WatchProbe.open(acl.async(mover), watch(EVERYWHERE, "move-"));
    WatchProbe inTeamA = WatchProbe.open(acl.async(mover), watch(Tenancies.of("default", "team-a"), "move-"));
    try (SseClient sse = SseClient.open(http,
        ARTISTS + "?watch=true&partition=*&namespace=*&name_prefix=move-", bearer(mover))) {
      assertThat(grpc.next().getEventCase()).isEqualTo(WatchEvent.EventCase.END_OF_SNAPSHOT);
      assertThat(inTeamA.next().getEventCase()).isEqualTo(WatchEvent.EventCase.END_OF_SNAPSHOT);
      sse.next("end_of_snapshot");
      write(Tenancies.of("default", "team-b"), "move-b1");
      write(Tenancies.of("default", "team-a"), "move-a1");
      assertThat(nextUpsert(grpc)).isEqualTo("move-a1");
      assertThat(nextUpsert(sse)).isEqualTo("move-a1");
      assertThat(nextUpsert(inTeamA)).isEqualTo("move-a1");

      // The policy moves to team-b: the watch in */* shows team-b's events from now on, and the
      // watch in default/team-a may no longer list there at all.
      acl.policy("mover", "", TeamPolicies.teamRule("team-b"));
      Resource b1 = TeamAclMatrixTest.resource(DemoTypes.ARTIST, Tenancies.of("default", "team-b"), "move-b1");
      await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
          acl.stub(mover).read(ReadRequest.newBuilder().setId(b1.getId()).build()));
      Status ended = inTeamA.end(Duration.ofSeconds(10));
      assertThat(ended.getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
      assertThat(ended.getDescription()).isEqualTo("permission denied: the token lacks \"list\" on demo.v2.Artist in default/team-a");

      write(Tenancies.of("default", "team-a"), "move-a2");
      write(Tenancies.of("default", "team-b"), "move-b2");
      assertThat(nextUpsert(grpc)).isEqualTo("move-b2");
      assertThat(nextUpsert(sse)).isEqualTo("move-b2");

      // No list rule left for artists anywhere: both watches end.
      acl.policy("mover", "", scoped("demo.v2.Album", "default", "team-b", "read", "list"));
      Status status = grpc.end(Duration.ofSeconds(10));
      assertThat(status.getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
      assertThat(status.getDescription()).isEqualTo("permission denied: the token lacks \"list\" on demo.v2.Artist in */*");
      SseClient.Event error = sse.next("error");
      assertThat(error.json().get("code").asText()).isEqualTo("PERMISSION_DENIED");
      sse.awaitEnd();
    }
  }
}
