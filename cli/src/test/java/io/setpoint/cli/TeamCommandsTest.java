package io.setpoint.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.setpoint.api.tls.TlsFiles;
import io.setpoint.demo.DemoTypes;
import io.setpoint.server.Agent;
import io.setpoint.testkit.TestCertificates;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The two-team walkthrough of docs/security.md through the CLI, over mutual TLS: tenancy-scoped
 * policies and a deny rule applied as YAML, a token created with {@code -identity}, and each
 * team's commands, by certificate and by secret.
 */
@Timeout(60)
class TeamCommandsTest {
  @TempDir static Path dir;
  private static Agent agent;
  private static TestCertificates ca;
  private static TlsFiles ci;
  private static TlsFiles laptop;
  private static String management;
  private static String teamB;

  @BeforeAll
  static void agentPoliciesAndTokens() throws IOException {
    ca = TestCertificates.create(dir.resolve("certs"));
    TlsFiles server = ca.issue("agent1", "localhost", "127.0.0.1");
    ci = ca.issueWithSubject("team-a-ci", "CN=team-a-ci", "spiffe://example.org/team-a/ci");
    laptop = ca.issue("laptop");
    agent = Agent.builder().port(0).types(DemoTypes::register).tls(server).start();
    management = as(laptop, "acl", "bootstrap", "-secret-only").out().trim();
    for (String team : List.of("team-a", "team-b")) {
      Path policy = Files.writeString(dir.resolve(team + ".yaml"), """
          id: {type: acl.v1.Policy, name: TEAM}
          data:
            description: TEAM may do everything with the demo types in its namespace
            rules:
              - {type: demo.*.*, partition: default, namespace: TEAM, permissions: [read, write, list]}
              - {type: demo.v2.Artist, namespace: TEAM, name_prefix: prod-, permissions: [write], effect: deny}
          """.replace("TEAM", team));
      CliRun applied = as(laptop, "resource", "apply", "-f", policy.toString(), "-token", management);
      assertThat(applied.code()).as(applied.toString()).isZero();
    }
    CliRun created = as(laptop, "acl", "token", "create", "-policy", "team-a", "-name", "team-a-ci",
        "-identity", "spiffe://example.org/team-a/ci", "-token", management);
    assertThat(created.code()).as(created.toString()).isZero();
    assertThat(created.out()).contains("Identities:  spiffe://example.org/team-a/ci\n");
    teamB = as(laptop, "acl", "token", "create", "-policy", "team-b", "-name", "team-b", "-secret-only",
        "-token", management).out().trim();
    for (String team : List.of("team-a", "team-b")) {
      CliRun written = as(laptop, "resource", "apply", "-f", artist(team, team + "-artist").toString(), "-token", management);
      assertThat(written.code()).as(written.toString()).isZero();
    }
  }

  @AfterAll
  static void stop() {
    agent.close();
  }

  private static Path artist(String namespace, String name) throws IOException {
    return Files.writeString(dir.resolve(name + ".yaml"), """
        id: {type: demo.v2.Artist, name: NAME, tenancy: {partition: default, namespace: NS}}
        data: {name: NAME}
        """.replace("NAME", name).replace("NS", namespace));
  }

  /** Runs a command presenting {@code identity}'s certificate. */
  private static CliRun as(TlsFiles identity, String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.addAll(List.of("-address", "127.0.0.1:" + agent.port(), "-ca-file", ca.caFile().toString(),
        "-client-cert", identity.certificate().toString(), "-client-key", identity.privateKey().toString()));
    return CliRun.run(all.toArray(String[]::new));
  }

  @Test
  void theCiCertificateActsAsTeamAsToken() throws IOException {
    CliRun listed = as(ci, "resource", "list", "Artist", "-partition", "*", "-namespace", "*");
    assertThat(listed.code()).as(listed.toString()).isZero();
    assertThat(listed.out()).contains("team-a-artist").doesNotContain("team-b-artist");

    CliRun written = as(ci, "resource", "apply", "-f", artist("team-a", "nina").toString());
    assertThat(written.code()).as(written.toString()).isZero();

    CliRun other = as(ci, "resource", "read", "Artist", "team-b-artist", "-namespace", "team-b");
    assertThat(other.code()).isEqualTo(1);
    assertThat(other.err()).isEqualTo(
        "Error: permission denied: the token lacks \"read\" on demo.v2.Artist default/team-b/team-b-artist\n");

    CliRun listOther = as(ci, "resource", "list", "Artist", "-namespace", "team-b");
    assertThat(listOther.code()).isEqualTo(1);
    assertThat(listOther.err()).isEqualTo("Error: permission denied: the token lacks \"list\" on demo.v2.Artist in default/team-b\n");

    CliRun prod = as(ci, "resource", "apply", "-f", artist("team-a", "prod-nina").toString());
    assertThat(prod.code()).as("the deny rule wins").isEqualTo(1);
    assertThat(prod.err()).isEqualTo("Error: permission denied: the token lacks \"write\" on demo.v2.Artist default/team-a/prod-nina\n");
  }

  @Test
  void teamBUsesItsSecretAndACertificateNoTokenListsIsRefused() {
    CliRun listed = as(laptop, "resource", "list", "Artist", "-partition", "*", "-namespace", "*", "-token", teamB);
    assertThat(listed.code()).as(listed.toString()).isZero();
    assertThat(listed.out()).contains("team-b-artist").doesNotContain("team-a-artist");

    CliRun anonymous = as(laptop, "resource", "list", "Artist", "-partition", "*", "-namespace", "*");
    assertThat(anonymous.code()).isEqualTo(1);
    assertThat(anonymous.err()).startsWith(
        "Error: no ACL token lists the client certificate's identity (subject CN=laptop): add it to a token's identities");
  }
}
