package io.setpoint.server;

import static io.setpoint.server.AclFixture.rule;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.Any;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.setpoint.api.Ids;
import io.setpoint.api.v1.ListRequest;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.WatchEvent;
import io.setpoint.api.v1.WatchListRequest;
import io.setpoint.api.v1.WriteRequest;
import io.setpoint.demo.DemoTypes;
import io.setpoint.demo.v2.Artist;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Token and policy changes take effect at once, on later calls and on watches already open: a
 * watch whose token is deleted ends UNAUTHENTICATED, one whose policy stops allowing the listing
 * ends PERMISSION_DENIED, and events are filtered by the policy as it is when they happen.
 */
class AclRevocationTest {
  /** How long a change may take to reach an open watch (the bound the server promises is far lower). */
  private static final Duration BOUND = Duration.ofSeconds(5);

  @RegisterExtension static final LiveAgent live = LiveAgent.withAcls();
  private static AclFixture acl;

  @BeforeAll
  static void bootstrap() {
    acl = new AclFixture(live);
  }

  private static void writeArtist(String namespace, String name) {
    acl.stub(acl.management()).write(WriteRequest.newBuilder().setResource(Resource.newBuilder()
        .setId(Ids.of(DemoTypes.ARTIST, io.setpoint.api.Tenancies.of("default", namespace), name))
        .setData(Any.pack(Artist.newBuilder().setName(name).build()))).build());
  }

  private static WatchListRequest watchNamespace(String namespace) {
    return WatchListRequest.newBuilder().setType(DemoTypes.ARTIST)
        .setTenancy(io.setpoint.api.Tenancies.of("default", namespace)).build();
  }

  private static WatchProbe watchUntilLive(String token, String namespace) throws InterruptedException {
    WatchProbe watch = WatchProbe.open(acl.async(token), watchNamespace(namespace));
    assertThat(watch.next().hasEndOfSnapshot()).isTrue();
    return watch;
  }

  @Test
  void aDeletedTokensOpenWatchEndsUnauthenticated() throws Exception {
    String token = acl.tokenWith("revoked-watcher", "", rule("demo.v2.Artist", "", "read", "list"));
    WatchProbe watch = watchUntilLive(token, "revoke");
    writeArtist("revoke", "before");
    assertThat(watch.next().getUpsert().getResource().getId().getName()).isEqualTo("before");

    acl.deleteToken("revoked-watcher");

    Status end = watch.end(BOUND);
    assertThat(end.getCode()).isEqualTo(Status.Code.UNAUTHENTICATED);
    assertThat(end.getDescription()).isEqualTo("the ACL token was deleted");
  }

  @Test
  void aDeletedTokenIsRefusedOnTheNextCall() {
    String token = acl.tokenWith("revoked-caller", "", rule("demo.v2.Artist", "", "list"));
    ListRequest list = ListRequest.newBuilder().setType(DemoTypes.ARTIST).build();
    acl.stub(token).list(list);

    acl.deleteToken("revoked-caller");

    await().atMost(BOUND).untilAsserted(() -> assertThatThrownBy(() -> acl.stub(token).list(list))
        .isInstanceOfSatisfying(StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAUTHENTICATED)));
  }

  @Test
  void aWatchEndsPermissionDeniedOnceItsPolicyNoLongerAllowsListing() throws Exception {
    String token = acl.tokenWith("narrowed", "", rule("demo.v2.Artist", "", "read", "list"));
    WatchProbe watch = watchUntilLive(token, "narrow");

    acl.policy("narrowed", "", rule("demo.v2.Artist", "", "read"));

    Status end = watch.end(BOUND);
    assertThat(end.getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
    assertThat(end.getDescription()).isEqualTo("permission denied: the token lacks \"list\" on demo.v2.Artist in default/narrow");
  }

  @Test
  void eventsAreFilteredByWhatThePolicyAllowsWhenTheyHappen() throws Exception {
    String token = acl.tokenWith("n-watcher", "", rule("demo.v2.Artist", "", "list"), rule("demo.v2.Artist", "n", "read"));
    WatchProbe watch = watchUntilLive(token, "filter");

    writeArtist("filter", "bob");
    writeArtist("filter", "nina");
    WatchEvent first = watch.next();
    assertThat(first.getUpsert().getResource().getId().getName()).as("bob is not readable: skipped").isEqualTo("nina");

    acl.policy("n-watcher", "", rule("demo.v2.Artist", "", "read", "list"));
    // Once the wider policy has reached the server's view, bob's next change is delivered.
    await().atMost(BOUND).until(() -> {
      writeArtistAgain("filter", "bob");
      return watch.queued() > 0;
    });
    assertThat(watch.next().getUpsert().getResource().getId().getName()).isEqualTo("bob");
    assertThat(watch.isEnded()).isFalse();
  }

  private static int generation;

  /** Rewrites an artist with new data, so that it is a change the watch hears of. */
  private static void writeArtistAgain(String namespace, String name) {
    acl.stub(acl.management()).write(WriteRequest.newBuilder().setResource(Resource.newBuilder()
        .setId(Ids.of(DemoTypes.ARTIST, io.setpoint.api.Tenancies.of("default", namespace), name))
        .setData(Any.pack(Artist.newBuilder().setName(name + " " + ++generation).build()))).build());
  }
}
