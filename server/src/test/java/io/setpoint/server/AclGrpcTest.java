package io.setpoint.server;

import static io.setpoint.server.AclFixture.rule;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.Any;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.setpoint.api.Ids;
import io.setpoint.api.Tenancies;
import io.setpoint.api.acl.v1.BootstrapRequest;
import io.setpoint.api.acl.v1.CreateTokenRequest;
import io.setpoint.api.acl.v1.Policy;
import io.setpoint.api.controller.v1.ListReconcilesRequest;
import io.setpoint.api.v1.DeleteRequest;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.ListByOwnerRequest;
import io.setpoint.api.v1.ListRequest;
import io.setpoint.api.v1.ListTypesRequest;
import io.setpoint.api.v1.MutateAndValidateRequest;
import io.setpoint.api.v1.ReadRequest;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.WatchListRequest;
import io.setpoint.api.v1.WriteRequest;
import io.setpoint.api.v1.WriteStatusRequest;
import io.setpoint.demo.DemoTypes;
import io.setpoint.demo.v2.Album;
import io.setpoint.demo.v2.Artist;
import java.time.Duration;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Every RPC with ACLs on, called allowed, denied and anonymous: allowed calls work, denied ones
 * answer PERMISSION_DENIED naming the permission and change nothing, anonymous ones (and unknown
 * tokens) answer UNAUTHENTICATED and change nothing.
 */
class AclGrpcTest {
  @RegisterExtension static final LiveAgent live = LiveAgent.withAcls();
  private static AclFixture acl;
  /** read and list demo.v2.Artist. */
  private static String reader;
  /** read, write and list every demo type. */
  private static String writer;
  /** read demo.v1.Executive only: a valid token that may do nothing here. */
  private static String outsider;

  @BeforeAll
  static void tokens() {
    acl = new AclFixture(live);
    reader = acl.tokenWith("reader", "", rule("demo.v2.Artist", "", "read", "list"));
    writer = acl.tokenWith("writer", "", rule("demo.*.*", "", "read", "write", "list"));
    outsider = acl.tokenWith("outsider", "", rule("demo.v1.Executive", "", "read"));
  }

  private static Resource artist(String name) {
    return Resource.newBuilder().setId(Ids.of(DemoTypes.ARTIST, name))
        .setData(Any.pack(Artist.newBuilder().setName(name).build())).build();
  }

  private static Resource write(String token, Resource resource) {
    return acl.stub(token).write(WriteRequest.newBuilder().setResource(resource).build()).getResource();
  }

  /** Calls {@code call}, expecting {@code code} with {@code message}, and no change to the store. */
  private static void refused(ThrowingCallable call, Status.Code code, String message) {
    byte[] before = live.storeBytes();
    assertThatThrownBy(call).isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
      assertThat(e.getStatus().getCode()).as(e.getMessage()).isEqualTo(code);
      assertThat(e.getStatus().getDescription()).contains(message);
    });
    assertThat(live.storeBytes()).as("a refused call changes nothing").isEqualTo(before);
  }

  private static void denied(ThrowingCallable call, String message) {
    refused(call, Status.Code.PERMISSION_DENIED, message);
  }

  private static void anonymous(java.util.function.Function<String, ?> call) {
    refused(() -> call.apply(null), Status.Code.UNAUTHENTICATED, "no ACL token");
    refused(() -> call.apply("spt_not-a-token"), Status.Code.UNAUTHENTICATED, "unknown ACL token");
  }

  @Test
  void read() {
    write(acl.management(), artist("read-me"));
    ReadRequest req = ReadRequest.newBuilder().setId(Ids.of(DemoTypes.ARTIST, "read-me")).build();

    assertThat(acl.stub(reader).read(req).getResource().getId().getName()).isEqualTo("read-me");
    denied(() -> acl.stub(outsider).read(req),
        "permission denied: the token lacks \"read\" on demo.v2.Artist default/default/read-me");
    anonymous(token -> acl.stub(token).read(req));
  }

  @Test
  void readOfAMissingResourceIsDeniedBeforeItIsNotFound() {
    ReadRequest req = ReadRequest.newBuilder().setId(Ids.of(DemoTypes.ARTIST, "nobody")).build();
    denied(() -> acl.stub(outsider).read(req), "lacks \"read\" on demo.v2.Artist default/default/nobody");
    refused(() -> acl.stub(reader).read(req), Status.Code.NOT_FOUND, "nobody");
  }

  @Test
  void write() {
    assertThat(write(writer, artist("nina")).getVersion()).isNotEmpty();
    denied(() -> write(reader, artist("nina-2")),
        "permission denied: the token lacks \"write\" on demo.v2.Artist default/default/nina-2");
    anonymous(token -> write(token, artist("nina-3")));
  }

  @Test
  void writeStatus() {
    Resource stored = write(acl.management(), artist("status"));
    WriteStatusRequest req = WriteStatusRequest.newBuilder().setId(stored.getId()).setKey("test.setpoint.io/x")
        .setStatus(io.setpoint.api.v1.Status.newBuilder().setObservedGeneration(stored.getGeneration())).build();

    denied(() -> acl.stub(reader).writeStatus(req), "lacks \"write\" on demo.v2.Artist default/default/status");
    anonymous(token -> acl.stub(token).writeStatus(req));
    assertThat(acl.stub(writer).writeStatus(req).getResource().getStatusMap()).containsKey("test.setpoint.io/x");
  }

  @Test
  void delete() {
    write(acl.management(), artist("doomed"));
    DeleteRequest req = DeleteRequest.newBuilder().setId(Ids.of(DemoTypes.ARTIST, "doomed")).build();

    denied(() -> acl.stub(reader).delete(req), "lacks \"write\" on demo.v2.Artist default/default/doomed");
    anonymous(token -> acl.stub(token).delete(req));
    acl.stub(writer).delete(req);
    refused(() -> acl.stub(reader).read(ReadRequest.newBuilder().setId(req.getId()).build()), Status.Code.NOT_FOUND, "doomed");
  }

  @Test
  void list() {
    write(acl.management(), artist("listed"));
    ListRequest req = ListRequest.newBuilder().setType(DemoTypes.ARTIST).setTenancy(Tenancies.of("*", "*")).build();

    assertThat(acl.stub(reader).list(req).getResourcesList()).extracting(r -> r.getId().getName()).contains("listed");
    denied(() -> acl.stub(outsider).list(req), "permission denied: the token lacks \"list\" on demo.v2.Artist in */*");
    anonymous(token -> acl.stub(token).list(req));
  }

  @Test
  void listShowsOnlyWhatTheTokenMayRead() {
    write(acl.management(), artist("nadia"));
    write(acl.management(), artist("bill"));
    String nOnly = acl.tokenWith("n-only", "", rule("demo.v2.Artist", "", "list"), rule("demo.v2.Artist", "n", "read"));
    ListRequest req = ListRequest.newBuilder().setType(DemoTypes.ARTIST).build();

    assertThat(acl.stub(nOnly).list(req).getResourcesList()).extracting(r -> r.getId().getName())
        .contains("nadia").doesNotContain("bill").allMatch(name -> name.startsWith("n"));
  }

  @Test
  void listByOwnerShowsOnlyReadableChildren() {
    Resource owner = write(acl.management(), artist("owner"));
    write(acl.management(), Resource.newBuilder().setId(Ids.of(DemoTypes.ALBUM, "owned")).setOwner(owner.getId())
        .setData(Any.pack(Album.newBuilder().setName("Owned").build())).build());
    ListByOwnerRequest req = ListByOwnerRequest.newBuilder().setOwner(owner.getId()).build();

    assertThat(acl.stub(writer).listByOwner(req).getResourcesList()).extracting(r -> r.getId().getName())
        .containsExactly("owned");
    assertThat(acl.stub(reader).listByOwner(req).getResourcesList()).as("reader may not read albums").isEmpty();
    anonymous(token -> acl.stub(token).listByOwner(req));
  }

  @Test
  void watchList() throws Exception {
    write(acl.management(), artist("watched"));
    WatchListRequest req = WatchListRequest.newBuilder().setType(DemoTypes.ARTIST).setNamePrefix("watched").build();

    WatchProbe allowed = WatchProbe.open(acl.async(reader), req);
    assertThat(allowed.next().getUpsert().getResource().getId().getName()).isEqualTo("watched");
    assertThat(allowed.next().hasEndOfSnapshot()).isTrue();

    Status denied = WatchProbe.open(acl.async(outsider), req).end(Duration.ofSeconds(10));
    assertThat(denied.getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
    assertThat(denied.getDescription()).contains("lacks \"list\" on demo.v2.Artist");
    assertThat(WatchProbe.open(acl.async(null), req).end(Duration.ofSeconds(10)).getCode())
        .isEqualTo(Status.Code.UNAUTHENTICATED);
  }

  @Test
  void mutateAndValidate() {
    MutateAndValidateRequest req = MutateAndValidateRequest.newBuilder().setResource(artist("dry-run")).build();

    assertThat(acl.stub(writer).mutateAndValidate(req).getResource().getId().getName()).isEqualTo("dry-run");
    denied(() -> acl.stub(reader).mutateAndValidate(req), "lacks \"write\" on demo.v2.Artist default/default/dry-run");
    anonymous(token -> acl.stub(token).mutateAndValidate(req));
  }

  @Test
  void reconcilesOfOneResourceNeedReadOnItAndAllReconcilesNeedOperatorRead() {
    ListReconcilesRequest ofArtist = ListReconcilesRequest.newBuilder().setId(Ids.of(DemoTypes.ARTIST, "miles")).build();
    assertThat(acl.controllers(reader).listReconciles(ofArtist).getReconcilesList())
        .allSatisfy(r -> assertThat(r.getKey()).contains("miles"));
    denied(() -> acl.controllers(outsider).listReconciles(ofArtist), "lacks \"read\" on demo.v2.Artist");
    denied(() -> acl.controllers(reader).listReconciles(ListReconcilesRequest.getDefaultInstance()),
        "lacks \"operator:read\"");
    assertThat(acl.controllers(acl.management()).listReconciles(ListReconcilesRequest.getDefaultInstance())
        .getReconcilesCount()).isNotNegative();
    refused(() -> acl.controllers(null).listReconciles(ofArtist), Status.Code.UNAUTHENTICATED, "");
  }

  @Test
  void listTypesNeedsAnyValidToken() {
    assertThat(acl.types(outsider).listTypes(ListTypesRequest.getDefaultInstance()).getTypesCount()).isPositive();
    anonymous(token -> acl.types(token).listTypes(ListTypesRequest.getDefaultInstance()));
  }

  @Test
  void bootstrapWorksOnlyOnce() {
    refused(() -> acl.acl(null).bootstrap(BootstrapRequest.getDefaultInstance()), Status.Code.FAILED_PRECONDITION,
        "ACLs were bootstrapped already");
    refused(() -> acl.acl(acl.management()).bootstrap(BootstrapRequest.getDefaultInstance()),
        Status.Code.FAILED_PRECONDITION, "bootstrap works only once");
  }

  @Test
  void createTokenNeedsOperatorWrite() {
    CreateTokenRequest req = CreateTokenRequest.newBuilder().setName("made").addPolicies("reader").build();

    denied(() -> acl.acl(writer).createToken(req), "permission denied: the token lacks \"operator:write\" on acl.v1.Token made");
    anonymous(token -> acl.acl(token).createToken(req));
    String secret = acl.acl(acl.management()).createToken(req).getSecret();
    assertThat(acl.types(secret).listTypes(ListTypesRequest.getDefaultInstance()).getTypesCount()).isPositive();
    refused(() -> acl.acl(acl.management()).createToken(req), Status.Code.ALREADY_EXISTS, "acl.v1.Token \"made\" exists already");
  }

  @Test
  void createTokenRefusesPoliciesThatDoNotExist() {
    CreateTokenRequest req = CreateTokenRequest.newBuilder().setName("dangling").addPolicies("no-such-policy").build();
    refused(() -> acl.acl(acl.management()).createToken(req), Status.Code.INVALID_ARGUMENT,
        "policies[0]: acl.v1.Policy \"no-such-policy\" does not exist");
  }

  @Test
  void noTypeRuleReachesTheAclTypesSoATokenCannotRaiseItself() {
    String everything = acl.tokenWith("everything", "", rule("*.*.*", "", "read", "write", "list"));
    Resource policy = Resource.newBuilder().setId(Ids.of(AclTypes.POLICY, "everything"))
        .setData(Any.pack(Policy.newBuilder().setOperator("write").build())).build();
    ID token = Ids.of(AclTypes.TOKEN, "everything");

    denied(() -> write(everything, policy), "lacks \"operator:write\" on acl.v1.Policy everything");
    denied(() -> acl.stub(everything).read(ReadRequest.newBuilder().setId(token).build()),
        "lacks \"operator:read\" on acl.v1.Token everything");
    denied(() -> acl.stub(everything).list(ListRequest.newBuilder().setType(AclTypes.TOKEN).build()),
        "lacks \"operator:read\" on acl.v1.Token");
    assertThat(write(everything, artist("anything")).getVersion()).isNotEmpty();
  }

  @Test
  void operatorWriteManagesPoliciesAndTokens() {
    String operator = acl.tokenWith("operator", "write");
    Resource policy = Resource.newBuilder().setId(Ids.of(AclTypes.POLICY, "by-operator"))
        .setData(Any.pack(Policy.newBuilder().addRules(rule("demo.v2.Album", "", "read")).build())).build();

    assertThat(write(operator, policy).getVersion()).isNotEmpty();
    assertThat(acl.acl(operator).createToken(CreateTokenRequest.newBuilder().addPolicies("by-operator").build())
        .getToken().getId().getName()).startsWith("token-");
  }
}
