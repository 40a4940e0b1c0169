package io.setpoint.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.setpoint.api.tls.TlsFiles;
import io.setpoint.testkit.TestCertificates;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** {@code agent -tls-*} and the client commands' {@code -ca-file}, {@code -client-cert}, {@code -client-key}. */
@Timeout(60)
class TlsCommandsTest {
  @TempDir Path dir;
  @RegisterExtension final CliAgent agent = new CliAgent();

  @Test
  void aMutualTlsAgentAnswersAClientWithTheCaAndACertificateOnly() throws Exception {
    TestCertificates ca = TestCertificates.create(dir);
    TlsFiles server = ca.issue("server", "localhost", "127.0.0.1");
    TlsFiles client = ca.issue("client");
    int port = agent.start("agent", "-dev", "-port", "0", "-tls-cert", server.certificate().toString(),
        "-tls-key", server.privateKey().toString(), "-tls-ca", ca.caFile().toString());
    assertThat(agent.messages()).anyMatch(m -> m.endsWith("over mutual TLS"));

    CliRun list = CliRun.run("resource", "list", "Artist", "-address", "127.0.0.1:" + port,
        "-ca-file", ca.caFile().toString(),
        "-client-cert", client.certificate().toString(), "-client-key", client.privateKey().toString());
    assertThat(list.code()).as(list.toString()).isZero();

    CliRun https = CliRun.run("resource", "list", "Artist", "-address", "https://localhost:" + port,
        "-ca-file", ca.caFile().toString(),
        "-client-cert", client.certificate().toString(), "-client-key", client.privateKey().toString());
    assertThat(https.code()).as(https.toString()).isZero();

    CliRun noCert = CliRun.run("resource", "list", "Artist", "-address", "127.0.0.1:" + port,
        "-ca-file", ca.caFile().toString());
    assertThat(noCert.code()).as(noCert.toString()).isEqualTo(1);
    assertThat(noCert.err()).startsWith("Error: cannot reach the Setpoint server at 127.0.0.1:" + port);
    assertThat(noCert.err()).contains("The agent requires a client certificate: give -client-cert and -client-key");

    CliRun plaintext = CliRun.run("resource", "list", "Artist", "-address", "127.0.0.1:" + port);
    assertThat(plaintext.code()).as(plaintext.toString()).isEqualTo(1);
    assertThat(plaintext.err()).contains("if the agent serves TLS, connect with TLS");
  }

  @Test
  void optionalClientCertificatesLetClientsWithoutOneIn() throws Exception {
    TestCertificates ca = TestCertificates.create(dir);
    TlsFiles server = ca.issue("server", "localhost", "127.0.0.1");
    TlsFiles client = ca.issue("client");
    int port = agent.start("agent", "-dev", "-port", "0", "-tls-cert", server.certificate().toString(),
        "-tls-key", server.privateKey().toString(), "-tls-ca", ca.caFile().toString(), "-tls-client-cert-optional");
    assertThat(agent.messages()).anyMatch(m -> m.endsWith("over TLS, client certificates optional"));

    CliRun noCert = CliRun.run("resource", "list", "Artist", "-address", "127.0.0.1:" + port, "-ca-file", ca.caFile().toString());
    assertThat(noCert.code()).as(noCert.toString()).isZero();
    CliRun withCert = CliRun.run("resource", "list", "Artist", "-address", "127.0.0.1:" + port,
        "-ca-file", ca.caFile().toString(),
        "-client-cert", client.certificate().toString(), "-client-key", client.privateKey().toString());
    assertThat(withCert.code()).as(withCert.toString()).isZero();

    CliRun withoutCa = CliRun.run("agent", "-dev", "-port", "0", "-tls-cert", server.certificate().toString(),
        "-tls-key", server.privateKey().toString(), "-tls-client-cert-optional");
    assertThat(withoutCa.code()).isEqualTo(2);
    assertThat(withoutCa.err()).contains("-tls-client-cert-optional requires -tls-ca");
  }

  @Test
  void tlsFlagsThatDoNotGoTogetherAreUsageErrorsNamingThem() {
    CliRun certOnly = CliRun.run("agent", "-dev", "-port", "0", "-tls-cert", "server.pem");
    assertThat(certOnly.code()).isEqualTo(2);
    assertThat(certOnly.err()).contains("-tls-cert and -tls-key go together");

    CliRun raftPartial = CliRun.run("agent", "-data-dir", dir.toString(), "-raft-tls-cert", "a.pem", "-raft-tls-key", "a-key.pem");
    assertThat(raftPartial.code()).isEqualTo(2);
    assertThat(raftPartial.err()).contains("-raft-tls-cert, -raft-tls-key and -raft-tls-ca go together");

    CliRun clientPartial = CliRun.run("resource", "list", "Artist", "-client-cert", "c.pem");
    assertThat(clientPartial.code()).isEqualTo(2);
    assertThat(clientPartial.err()).contains("-client-cert and -client-key go together");
  }

  @Test
  void unusableTlsFilesAreNamedWithTheirFlag() {
    TestCertificates ca = TestCertificates.create(dir);
    TlsFiles server = ca.issue("server", "127.0.0.1");
    TlsFiles other = ca.issue("other");

    CliRun mismatched = CliRun.run("agent", "-dev", "-port", "0", "-tls-cert", server.certificate().toString(),
        "-tls-key", other.privateKey().toString());
    assertThat(mismatched.code()).as(mismatched.toString()).isEqualTo(1);
    assertThat(mismatched.err()).startsWith("Error: -tls-cert/-tls-key/-tls-ca: the private key " + other.privateKey()
        + " does not belong to the certificate " + server.certificate());

    Path missing = dir.resolve("missing-ca.pem");
    CliRun client = CliRun.run("resource", "list", "Artist", "-address", "127.0.0.1:1", "-ca-file", missing.toString());
    assertThat(client.code()).as(client.toString()).isEqualTo(2);
    assertThat(client.err()).contains("-ca-file/-client-cert/-client-key: " + missing + ": cannot read the file");
  }
}
