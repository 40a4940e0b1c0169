package io.setpoint.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.Any;
import io.grpc.Status;
import io.setpoint.api.Ids;
import io.setpoint.api.Tenancies;
import io.setpoint.api.acl.v1.CreateTokenRequest;
import io.setpoint.api.acl.v1.Token;
import io.setpoint.api.tls.TlsFiles;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.ListRequest;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Tenancy;
import io.setpoint.api.v1.WatchEvent;
import io.setpoint.api.v1.WatchListRequest;
import io.setpoint.client.SetpointClient;
import io.setpoint.client.SetpointException;
import io.setpoint.client.Watch;
import io.setpoint.demo.DemoTypes;
import io.setpoint.demo.v2.Artist;
import io.setpoint.testkit.TestCertificates;
import java.net.http.HttpClient;
import java.net.http.HttpRequest.BodyPublishers;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.net.Socket;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedKeyManager;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Client certificates acting as tokens over real mutual TLS, gRPC and HTTP: a certificate whose
 * SPIFFE ID or subject a token lists acts as that token without a secret, one no token lists is
 * refused naming what it presented, and a secret sent with any certificate wins.
 */
@Timeout(60)
class CertificateIdentityTest {
  private static final String CI = "spiffe://example.org/team-a/ci";
  private static final Tenancy TEAM_A = Tenancies.of("default", "team-a");
  private static final Tenancy TEAM_B = Tenancies.of("default", "team-b");

  @TempDir static Path dir;
  static TestCertificates ca;
  static TlsFiles ci;
  static TlsFiles alice;
  static TlsFiles stranger;
  static Agent agent;
  static String management;
  static String teamBSecret;

  @BeforeAll
  static void agentCertificatesAndTokens() {
    ca = TestCertificates.create(dir.resolve("ca"));
    TlsFiles server = ca.issue("server", "localhost", "127.0.0.1");
    ci = ca.issueWithSubject("ci", "O=Team A,CN=ci-runner", CI);
    // The subject's RDNs in certificate order, O first: in RFC 4514 form (last first) CN=alice,O=Team B.
    alice = ca.issueWithSubject("alice", "O=Team B,CN=alice");
    stranger = ca.issueWithSubject("stranger", "CN=stranger", "spiffe://example.org/nobody");
    agent = Agent.builder().port(0).acls(true).metricsAcl(true).types(DemoTypes::register).tls(server).start();
    try (SetpointClient anonymous = client(stranger, null)) {
      management = anonymous.bootstrapAcls().getSecret(); // bootstrap needs no token, and no identity
    }
    try (SetpointClient admin = client(stranger, management)) {
      admin.write(TeamPolicies.policyResource("team-a", TeamPolicies.teamRule("team-a")));
      admin.write(TeamPolicies.policyResource("team-b", TeamPolicies.teamRule("team-b")));
      Token ciToken = admin.createToken(CreateTokenRequest.newBuilder().setName("team-a-ci").addPolicies("team-a")
          .addIdentities(CI).build()).getToken().getData().unpack(Token.class);
      assertThat(ciToken.getIdentitiesList()).containsExactly(CI);
      // Listed in another spelling: subjects match in RFC 4514 form, ignoring case and spaces.
      teamBSecret = admin.createToken(CreateTokenRequest.newBuilder().setName("team-b-alice").addPolicies("team-b")
          .addIdentities("cn=Alice, o=team b").build()).getSecret();
      admin.write(artist(TEAM_A, "a1"));
      admin.write(artist(TEAM_B, "b1"));
    } catch (com.google.protobuf.InvalidProtocolBufferException e) {
      throw new AssertionError(e);
    }
  }

  @AfterAll
  static void stop() {
    agent.close();
  }

  private static SetpointClient client(TlsFiles identity, String token) {
    SetpointClient.Builder builder = SetpointClient.builder().address("127.0.0.1:" + agent.port()).tls(ca.caFile())
        .clientCertificate(identity.certificate(), identity.privateKey());
    return (token == null ? builder : builder.token(token)).build();
  }

  private static Resource artist(Tenancy tenancy, String name) {
    return Resource.newBuilder().setId(Ids.of(DemoTypes.ARTIST, tenancy, name))
        .setData(Any.pack(Artist.newBuilder().setName(name).build())).build();
  }

  private static void denied(Runnable call, Status.Code code, String message) {
    assertThatThrownBy(call::run).isInstanceOfSatisfying(SetpointException.class, e -> {
      assertThat(e.code()).isEqualTo(code);
      assertThat(e.description()).isEqualTo(message);
    });
  }

  private static List<String> listEverywhere(SetpointClient client) {
    return client.list(ListRequest.newBuilder().setType(DemoTypes.ARTIST).setTenancy(Tenancies.of("*", "*")).build())
        .getResourcesList().stream().map(r -> r.getId().getName()).sorted().toList();
  }

  @Test
  void aSpiffeIdActsAsItsTokenOverGrpc() {
    try (SetpointClient client = client(ci, null)) {
      assertThat(client.read(artist(TEAM_A, "a1").getId()).getId().getName()).isEqualTo("a1");
      assertThat(client.write(artist(TEAM_A, "a2")).getVersion()).isNotEmpty();
      assertThat(listEverywhere(client)).containsExactly("a1", "a2");
      ID b1 = artist(TEAM_B, "b1").getId();
      denied(() -> client.read(b1), Status.Code.PERMISSION_DENIED,
          "permission denied: the token lacks \"read\" on demo.v2.Artist default/team-b/b1");
      denied(() -> client.write(artist(TEAM_B, "b2")), Status.Code.PERMISSION_DENIED,
          "permission denied: the token lacks \"write\" on demo.v2.Artist default/team-b/b2");
      denied(() -> client.delete(b1), Status.Code.PERMISSION_DENIED,
          "permission denied: the token lacks \"write\" on demo.v2.Artist default/team-b/b1");
    }
  }

  @Test
  void aSubjectActsAsItsTokenOverGrpcAndAWatchSeesOnlyItsNamespace() {
    try (SetpointClient client = client(alice, null); SetpointClient admin = client(stranger, management);
        Watch watch = client.watch(WatchListRequest.newBuilder().setType(DemoTypes.ARTIST)
            .setTenancy(Tenancies.of("*", "*")).setNamePrefix("cert-watch-").build())) {
      assertThat(client.read(artist(TEAM_B, "b1").getId()).getId().getName()).isEqualTo("b1");
      denied(() -> client.read(artist(TEAM_A, "a1").getId()), Status.Code.PERMISSION_DENIED,
          "permission denied: the token lacks \"read\" on demo.v2.Artist default/team-a/a1");
      assertThat(watch.next().getEventCase()).isEqualTo(WatchEvent.EventCase.END_OF_SNAPSHOT);
      admin.write(artist(TEAM_A, "cert-watch-a"));
      admin.write(artist(TEAM_B, "cert-watch-b"));
      WatchEvent event = watch.next();
      assertThat(event.getUpsert().getResource().getId().getName()).as("team-a's artist was skipped").isEqualTo("cert-watch-b");
    }
  }

  @Test
  void aCertificateNoTokenListsIsUnauthenticatedNamingItsIdentity() {
    try (SetpointClient client = client(stranger, null)) {
      denied(() -> client.read(artist(TEAM_A, "a1").getId()), Status.Code.UNAUTHENTICATED,
          "no ACL token lists the client certificate's identity (spiffe://example.org/nobody, subject CN=stranger): "
              + "add it to a token's identities, or send a token secret");
    }
  }

  @Test
  void aSecretWinsOverTheCertificate() {
    try (SetpointClient asTeamB = client(ci, teamBSecret); SetpointClient unknown = client(ci, "spt_no-such-secret")) {
      assertThat(asTeamB.read(artist(TEAM_B, "b1").getId()).getId().getName()).isEqualTo("b1");
      denied(() -> asTeamB.read(artist(TEAM_A, "a1").getId()), Status.Code.PERMISSION_DENIED,
          "permission denied: the token lacks \"read\" on demo.v2.Artist default/team-a/a1");
      denied(() -> unknown.read(artist(TEAM_A, "a1").getId()), Status.Code.UNAUTHENTICATED,
          "unknown ACL token: no token has this secret (it may have been deleted)");
    }
  }

  @Test
  void removingTheIdentityFromItsTokenEndsTheCertificatesOpenWatch() throws Exception {
    TlsFiles temp = ca.issueWithSubject("temp", "CN=temp", "spiffe://example.org/team-a/temp");
    try (SetpointClient admin = client(stranger, management); SetpointClient client = client(temp, null)) {
      admin.createToken(CreateTokenRequest.newBuilder().setName("temp").addPolicies("team-a")
          .addIdentities("spiffe://example.org/team-a/temp").build());
      try (Watch watch = client.watch(WatchListRequest.newBuilder().setType(DemoTypes.ARTIST).setTenancy(TEAM_A)
          .setNamePrefix("temp-").build())) {
        assertThat(watch.next().getEventCase()).isEqualTo(WatchEvent.EventCase.END_OF_SNAPSHOT);
        Resource token = admin.read(Ids.of(AclTypes.TOKEN, "temp"));
        Token data = token.getData().unpack(Token.class).toBuilder().clearIdentities().build();
        admin.write(token.toBuilder().setData(Any.pack(data)).build());
        assertThatThrownBy(watch::hasNext).isInstanceOfSatisfying(SetpointException.class, e -> {
          assertThat(e.code()).isEqualTo(Status.Code.UNAUTHENTICATED);
          assertThat(e.description()).isEqualTo("no ACL token lists the client certificate's identity any more "
              + "(spiffe://example.org/team-a/temp, subject CN=temp): add it to a token's identities, or send a token secret");
        });
      }
      denied(() -> client.read(artist(TEAM_A, "a1").getId()), Status.Code.UNAUTHENTICATED,
          "no ACL token lists the client certificate's identity (spiffe://example.org/team-a/temp, subject CN=temp): "
              + "add it to a token's identities, or send a token secret");
    }
  }

  @Test
  void withOptionalClientCertificatesASecretAloneWorksAndACertificateStillActsAsItsToken() throws Exception {
    try (Agent optional = Agent.builder().port(0).acls(true).types(DemoTypes::register)
        .tls(ca.issue("optional", "localhost", "127.0.0.1")).clientCertificatesOptional(true).start()) {
      String address = "127.0.0.1:" + optional.port();
      String secret;
      try (SetpointClient noCertificate = SetpointClient.builder().address(address).tls(ca.caFile()).build()) {
        secret = noCertificate.bootstrapAcls().getSecret();
        denied(() -> noCertificate.read(artist(TEAM_A, "a1").getId()), Status.Code.UNAUTHENTICATED,
            "no ACL token: this agent enforces ACLs; send a token in x-setpoint-token metadata (setpoint -token, or SETPOINT_TOKEN)");
      }
      try (SetpointClient admin = SetpointClient.builder().address(address).tls(ca.caFile()).token(secret).build()) {
        admin.write(TeamPolicies.policyResource("team-a", TeamPolicies.teamRule("team-a")));
        admin.createToken(CreateTokenRequest.newBuilder().setName("team-a-ci").addPolicies("team-a").addIdentities(CI).build());
        admin.write(artist(TEAM_A, "a1"));
      }
      try (SetpointClient certificate = SetpointClient.builder().address(address).tls(ca.caFile())
          .clientCertificate(ci.certificate(), ci.privateKey()).build()) {
        assertThat(certificate.read(artist(TEAM_A, "a1").getId()).getId().getName()).isEqualTo("a1");
      }
      // Optional is not unchecked: a certificate another CA signed never stands for a token, even
      // one that lists its subject. gRPC's client leaves it out of the handshake (the agent asks
      // for its CA's certificates only); a client that sends it anyway is cut off.
      TlsFiles rogue = TestCertificates.create(dir.resolve("rogue-ca")).issueWithSubject("rogue", "CN=team-a-ci");
      try (SetpointClient admin = SetpointClient.builder().address(address).tls(ca.caFile()).token(secret).build()) {
        admin.createToken(CreateTokenRequest.newBuilder().setName("spoofed").addPolicies("team-a")
            .addIdentities("CN=team-a-ci").build());
      }
      try (SetpointClient untrusted = SetpointClient.builder().address(address).tls(ca.caFile())
          .clientCertificate(rogue.certificate(), rogue.privateKey()).build()) {
        denied(() -> untrusted.read(artist(TEAM_A, "a1").getId()), Status.Code.UNAUTHENTICATED,
            "no ACL token: this agent enforces ACLs; send a token in x-setpoint-token metadata (setpoint -token, or SETPOINT_TOKEN)");
      }
      Http forced = new Http(HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
          .sslContext(alwaysPresenting(rogue)).connectTimeout(Duration.ofSeconds(5)).build(),
          "https://localhost:" + optional.port());
      Http trusted = new Http(HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
          .sslContext(alwaysPresenting(ci)).connectTimeout(Duration.ofSeconds(5)).build(),
          "https://localhost:" + optional.port());
      assertThat(trusted.get("/api/demo/v2/Artist/a1?partition=default&namespace=team-a").status())
          .as("the same client with the CA's certificate").isEqualTo(200);
      // TLS 1.3 checks the client's certificate after the client has sent its request: the agent
      // closes the connection without an answer.
      assertThatThrownBy(() -> forced.get("/api/demo/v2/Artist/a1?partition=default&namespace=team-a"))
          .isInstanceOf(java.io.UncheckedIOException.class);
    }
  }

  /** A TLS client that sends {@code identity}'s certificate whatever CAs the server asks for. */
  private static SSLContext alwaysPresenting(TlsFiles identity) throws GeneralSecurityException {
    X509ExtendedKeyManager keys = (X509ExtendedKeyManager) identity.load().keyManagerFactory().getKeyManagers()[0];
    X509ExtendedKeyManager any = new X509ExtendedKeyManager() {
      @Override
      public String[] getClientAliases(String keyType, Principal[] issuers) {
        return keys.getClientAliases(keyType, null);
      }

      @Override
      public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
        return keys.chooseClientAlias(keyType, null, socket);
      }

      @Override
      public String chooseEngineClientAlias(String[] keyType, Principal[] issuers, SSLEngine engine) {
        return keys.chooseEngineClientAlias(keyType, null, engine);
      }

      @Override
      public String[] getServerAliases(String keyType, Principal[] issuers) {
        return keys.getServerAliases(keyType, issuers);
      }

      @Override
      public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
        return keys.chooseServerAlias(keyType, issuers, socket);
      }

      @Override
      public X509Certificate[] getCertificateChain(String alias) {
        return keys.getCertificateChain(alias);
      }

      @Override
      public PrivateKey getPrivateKey(String alias) {
        return keys.getPrivateKey(alias);
      }
    };
    SSLContext ssl = SSLContext.getInstance("TLS");
    ssl.init(new KeyManager[] {any}, ci.load().trustManagerFactory().getTrustManagers(), null);
    return ssl;
  }

  /** An HTTPS client presenting {@code identity}'s certificate. */
  private static Http https(TlsFiles identity) throws GeneralSecurityException {
    SSLContext ssl = SSLContext.getInstance("TLS");
    ssl.init(identity.load().keyManagerFactory().getKeyManagers(), identity.load().trustManagerFactory().getTrustManagers(), null);
    HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).sslContext(ssl)
        .connectTimeout(Duration.ofSeconds(5)).build();
    return new Http(client, "https://localhost:" + agent.port());
  }

  private static List<String> names(Http.Answer answer) {
    assertThat(answer.status()).as(answer.text()).isEqualTo(200);
    List<String> names = new ArrayList<>();
    answer.json().path("resources").forEach(r -> names.add(r.at("/id/name").asText()));
    return names.stream().sorted().toList();
  }

  @Test
  void certificatesActAsTheirTokensOverHttp() throws Exception {
    Http asCi = https(ci);
    assertThat(asCi.get("/api/demo/v2/Artist/a1?partition=default&namespace=team-a").status()).isEqualTo(200);
    Http.Answer other = asCi.get("/api/demo/v2/Artist/b1?partition=default&namespace=team-b");
    assertThat(other.status()).isEqualTo(403);
    assertThat(other.json().get("message").asText())
        .isEqualTo("permission denied: the token lacks \"read\" on demo.v2.Artist default/team-b/b1");
    assertThat(names(asCi.get("/api/demo/v2/Artist?partition=*&namespace=*&name_prefix=b"))).isEmpty();
    assertThat(asCi.put("/api/demo/v2/Artist/a-http?partition=default&namespace=team-a", "{\"data\": {\"name\": \"A\"}}")
        .status()).isEqualTo(200);

    Http asAlice = https(alice);
    assertThat(names(asAlice.get("/api/demo/v2/Artist?partition=*&namespace=*&name_prefix=b"))).containsExactly("b1");
    try (SseClient sse = SseClient.open(asAlice, "/api/demo/v2/Artist?watch=true&partition=*&namespace=*&name_prefix=b1",
        Map.of())) {
      assertThat(sse.status()).isEqualTo(200);
      assertThat(sse.next("upsert").json().at("/upsert/resource/id/name").asText()).isEqualTo("b1");
      sse.next("end_of_snapshot");
    }

    Http.Answer stranger = https(CertificateIdentityTest.stranger).get("/api/demo/v2/Artist?partition=*&namespace=*");
    assertThat(stranger.status()).isEqualTo(401);
    assertThat(stranger.json().get("message").asText()).startsWith(
        "no ACL token lists the client certificate's identity (spiffe://example.org/nobody, subject CN=stranger)");
    // /metrics (with -metrics-acl) resolves certificates too: the CI's token lacks operator:read.
    assertThat(asCi.get("/metrics").status()).isEqualTo(403);
    assertThat(https(CertificateIdentityTest.stranger).get("/metrics").status()).isEqualTo(401);
    Http.Answer withSecret = https(CertificateIdentityTest.stranger).send("GET", "/api/demo/v2/Artist/b1?partition=default&namespace=team-b",
        null, BodyPublishers.noBody(), Map.of("Authorization", "Bearer " + teamBSecret));
    assertThat(withSecret.status()).as("the secret wins").isEqualTo(200);
  }
}
