package io.setpoint.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.Any;
import io.grpc.Status;
import io.setpoint.api.Ids;
import io.setpoint.api.tls.TlsFiles;
import io.setpoint.api.v1.Resource;
import io.setpoint.client.SetpointClient;
import io.setpoint.client.SetpointException;
import io.setpoint.demo.DemoTypes;
import io.setpoint.demo.v2.Artist;
import io.setpoint.storage.memory.MemoryBackend;
import io.setpoint.testkit.TestCertificates;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.time.Duration;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The API port over TLS and mutual TLS: gRPC, HTTP/JSON and /metrics, and who is refused. */
class TlsAgentTest {
  @TempDir static Path dir;
  static TestCertificates ca;
  static TlsFiles server;
  static TlsFiles client;
  static TlsFiles rogue;

  @BeforeAll
  static void certificates() {
    ca = TestCertificates.create(dir.resolve("ca"));
    server = ca.issue("server", "localhost", "127.0.0.1");
    client = ca.issue("client");
    rogue = TestCertificates.create(dir.resolve("other-ca")).issue("rogue", "localhost", "127.0.0.1");
  }

  private static Agent start(TlsFiles tls) {
    return Agent.builder().port(0).acls(false).types(DemoTypes::register).tls(tls).start();
  }

  private static Resource artist(String name) {
    return Resource.newBuilder()
        .setId(Ids.of(DemoTypes.ARTIST, name))
        .setData(Any.pack(Artist.newBuilder().setName(name).build()))
        .build();
  }

  @Test
  void tlsServesGrpcHttpAndMetrics() throws Exception {
    try (Agent agent = start(TlsFiles.of(server.certificate(), server.privateKey()));
        SetpointClient grpc = SetpointClient.builder().address("127.0.0.1:" + agent.port()).tls(ca.caFile()).build()) {
      assertThat(grpc.write(artist("miles")).getVersion()).isNotEmpty();
      assertThat(grpc.read(Ids.of(DemoTypes.ARTIST, "miles")).getId().getName()).isEqualTo("miles");

      HttpClient https = https(null);
      HttpResponse<String> read = get(https, "https://127.0.0.1:" + agent.port() + "/api/demo/v2/Artist/miles");
      assertThat(read.statusCode()).isEqualTo(200);
      assertThat(read.body()).contains("\"name\":\"miles\"");
      HttpResponse<String> metrics = get(https, "https://localhost:" + agent.port() + "/metrics");
      assertThat(metrics.statusCode()).isEqualTo(200);

      // The port serves HTTPS only.
      assertThatThrownBy(() -> get(HttpClient.newHttpClient(), "http://127.0.0.1:" + agent.port() + "/healthz"))
          .isInstanceOf(IOException.class);
      // The agent's own client is in-process, untouched by TLS.
      assertThat(agent.client().read(Ids.of(DemoTypes.ARTIST, "miles")).getId().getName()).isEqualTo("miles");
    }
  }

  @Test
  void anHttpsAddressMeansTls() {
    try (Agent agent = start(TlsFiles.of(server.certificate(), server.privateKey()));
        SetpointClient grpc = SetpointClient.builder().address("https://localhost:" + agent.port()).build()) {
      // Without -ca-file the JVM's CAs are trusted, and they did not sign the test CA.
      assertThatThrownBy(grpc::types)
          .isInstanceOfSatisfying(SetpointException.class, e -> assertThat(e.code()).isEqualTo(Status.Code.UNAVAILABLE))
          .hasMessageContaining("cannot reach the Setpoint server at https://localhost:" + agent.port())
          .hasMessageContaining("certification path");
    }
  }

  @Test
  void aPlaintextClientIsToldItCannotReachTheServer() {
    try (Agent agent = start(TlsFiles.of(server.certificate(), server.privateKey()));
        SetpointClient plain = SetpointClient.connect("127.0.0.1:" + agent.port())) {
      assertThatThrownBy(plain::types)
          .isInstanceOfSatisfying(SetpointException.class, e -> assertThat(e.code()).isEqualTo(Status.Code.UNAVAILABLE))
          .hasMessageContaining("cannot reach the Setpoint server at 127.0.0.1:" + agent.port())
          .hasMessageContaining("if the agent serves TLS, connect with TLS");
    }
  }

  @Test
  void aServerCertificateFromAnotherCaIsRefusedByTheClient() {
    try (Agent agent = start(TlsFiles.of(rogue.certificate(), rogue.privateKey()));
        SetpointClient grpc = SetpointClient.builder().address("127.0.0.1:" + agent.port()).tls(ca.caFile()).build()) {
      assertThatThrownBy(grpc::types)
          .isInstanceOfSatisfying(SetpointException.class, e -> assertThat(e.code()).isEqualTo(Status.Code.UNAVAILABLE))
          .hasMessageContaining("certification path");
    }
  }

  @Test
  void mutualTlsAdmitsOnlyClientsWithACertificateFromTheCa() throws Exception {
    try (Agent agent = start(server)) {
      String address = "127.0.0.1:" + agent.port();
      try (SetpointClient noCert = SetpointClient.builder().address(address).tls(ca.caFile()).build()) {
        assertThatThrownBy(noCert::types)
            .isInstanceOfSatisfying(SetpointException.class, e -> assertThat(e.code()).isEqualTo(Status.Code.UNAVAILABLE));
      }
      try (SetpointClient untrusted = SetpointClient.builder().address(address).tls(ca.caFile())
          .clientCertificate(rogue.certificate(), rogue.privateKey()).build()) {
        assertThatThrownBy(untrusted::types)
            .isInstanceOfSatisfying(SetpointException.class, e -> assertThat(e.code()).isEqualTo(Status.Code.UNAVAILABLE));
      }
      try (SetpointClient trusted = SetpointClient.builder().address(address).tls(ca.caFile())
          .clientCertificate(client.certificate(), client.privateKey()).build()) {
        assertThat(trusted.write(artist("ella")).getId().getName()).isEqualTo("ella");
      }

      String metrics = "https://127.0.0.1:" + agent.port() + "/metrics";
      assertThatThrownBy(() -> get(https(null), metrics)).isInstanceOf(IOException.class);
      assertThatThrownBy(() -> get(https(rogue), metrics)).isInstanceOf(IOException.class);
      assertThat(get(https(client), metrics).statusCode()).isEqualTo(200);
    }
  }

  @Test
  void unusableFilesAreNamedAndTheStoreIsClosed() {
    MemoryBackend store = new MemoryBackend();
    TlsFiles mismatched = TlsFiles.of(server.certificate(), client.privateKey());

    assertThatThrownBy(() -> Agent.builder().port(0).backend(store).tls(mismatched).start())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("the private key " + client.privateKey() + " does not belong to the certificate "
            + server.certificate() + " (CN=server)");
    Path missing = dir.resolve("missing.pem");
    assertThatThrownBy(() -> Agent.builder().port(0).tls(TlsFiles.of(server.certificate(), server.privateKey())
            .withTrustedCa(missing)).start())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(missing + ": cannot read the file");
    assertThatThrownBy(() -> store.read(io.setpoint.storage.Consistency.EVENTUAL, Ids.of(DemoTypes.ARTIST, "x")))
        .isInstanceOf(RuntimeException.class);
  }

  /** An HTTPS client trusting the test CA, presenting {@code identity}'s certificate unless null. */
  private static HttpClient https(TlsFiles identity) throws GeneralSecurityException {
    SSLContext ssl = SSLContext.getInstance("TLS");
    TlsFiles.Loaded trust = server.load();
    ssl.init(identity == null ? null : identity.load().keyManagerFactory().getKeyManagers(),
        trust.trustManagerFactory().getTrustManagers(), null);
    return HttpClient.newBuilder().sslContext(ssl).connectTimeout(Duration.ofSeconds(5)).build();
  }

  private static HttpResponse<String> get(HttpClient http, String uri) throws IOException, InterruptedException {
    return http.send(HttpRequest.newBuilder(URI.create(uri)).timeout(Duration.ofSeconds(10)).build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
