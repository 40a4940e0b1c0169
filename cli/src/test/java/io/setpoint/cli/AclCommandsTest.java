package io.setpoint.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.setpoint.demo.DemoTypes;
import io.setpoint.server.Agent;
import io.setpoint.testkit.FreePorts;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code setpoint acl bootstrap}, {@code setpoint acl token create} and {@code -token} against a
 * real agent with ACLs on, in the order of the walkthrough in docs/security.md.
 */
@Timeout(60)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class AclCommandsTest {
  private static Agent agent;
  private static String address;
  private static String management;
  private static String reader;

  @TempDir static Path dir;

  @BeforeAll
  static void start() {
    agent = Agent.builder().port(0).types(DemoTypes::register).start();
    address = "127.0.0.1:" + agent.port();
  }

  @AfterAll
  static void stop() {
    agent.close();
  }

  private static CliRun cli(String... args) {
    return CliRun.run(Stream.concat(Stream.of(args), Stream.of("-address", address)).toArray(String[]::new));
  }

  private static String secretLine(CliRun run) {
    return run.out().lines().filter(l -> l.startsWith("Secret:")).findFirst().orElseThrow()
        .substring("Secret:".length()).trim();
  }

  @Test
  @Order(1)
  void bootstrapPrintsTheManagementTokenOnce() {
    CliRun first = cli("acl", "bootstrap");
    CliRun second = cli("acl", "bootstrap");

    assertThat(first.code()).as(first.toString()).isZero();
    assertThat(first.out()).startsWith("Token:       bootstrap-").contains("Management:  true\n").contains("Secret:      spt_");
    assertThat(first.err()).contains("shown only this once");
    management = secretLine(first);
    assertThat(second.code()).isEqualTo(1);
    assertThat(second.err()).startsWith("Error: ACLs were bootstrapped already (management token bootstrap-")
        .contains("bootstrap works only once");
  }

  @Test
  @Order(2)
  void withoutATokenCommandsAreRefused() {
    CliRun run = cli("resource", "list", "demo.v2.Artist");

    assertThat(run.code()).isEqualTo(1);
    assertThat(run.err()).startsWith("Error: no ACL token: this agent enforces ACLs; send a token in x-setpoint-token metadata");
  }

  @Test
  @Order(3)
  void aPolicyAppliedAsAResourceGivesATokenItsPermissions() throws IOException {
    Path policy = Files.writeString(dir.resolve("policy.yaml"), """
        id: {type: acl.v1.Policy, name: artist-readers}
        data:
          description: Read and list artists
          rules:
            - type: demo.v2.Artist
              permissions: [read, list]
        """);
    CliRun applied = cli("resource", "apply", "-f", policy.toString(), "-token", management);
    CliRun created = cli("acl", "token", "create", "-policy", "artist-readers", "-name", "reader", "-secret-only",
        "-token", management);
    reader = created.out().trim();
    CliRun listed = cli("resource", "list", "Artist", "-token", reader);
    CliRun written = cli("resource", "apply", "-f", Files.writeString(dir.resolve("artist.yaml"), """
        id: {type: demo.v2.Artist, name: nina}
        data: {name: Nina Simone}
        """).toString(), "-token", reader);

    assertThat(applied.code()).as(applied.toString()).isZero();
    assertThat(applied.out()).startsWith("created acl.v1.Policy/artist-readers");
    assertThat(created.code()).as(created.toString()).isZero();
    assertThat(reader).startsWith("spt_").doesNotContain("\n");
    assertThat(listed.code()).as(listed.toString()).isZero();
    assertThat(written.code()).isEqualTo(1);
    assertThat(written.err()).isEqualTo(
        "Error: permission denied: the token lacks \"write\" on demo.v2.Artist default/default/nina\n");
  }

  @Test
  @Order(4)
  void tokenCreateNeedsOperatorWriteAndAnExistingPolicy() {
    CliRun byReader = cli("acl", "token", "create", "-management", "-token", reader);
    CliRun unknownToken = cli("acl", "token", "create", "-management", "-token", "spt_made-up");
    CliRun nothing = cli("acl", "token", "create", "-token", management);
    CliRun unknownPolicy = cli("acl", "token", "create", "-policy", "nope", "-token", management);

    assertThat(byReader.code()).isEqualTo(1);
    assertThat(byReader.err()).startsWith("Error: permission denied: the token lacks \"operator:write\" on acl.v1.Token token-");
    assertThat(unknownToken.code()).isEqualTo(1);
    assertThat(unknownToken.err()).startsWith("Error: unknown ACL token");
    assertThat(nothing.code()).isEqualTo(2);
    assertThat(nothing.err()).startsWith("Error: give -policy NAME (repeat for several) or -management");
    assertThat(unknownPolicy.code()).isEqualTo(1);
    assertThat(unknownPolicy.err()).contains("acl.v1.Policy \"nope\" does not exist");
  }

  @Test
  void devWithAclsEnforcesThem() throws Exception {
    int port = FreePorts.loopback();
    CliRun dev = CliRun.start("agent", "-dev", "-acls", "-port", String.valueOf(port));
    try {
      String at = "127.0.0.1:" + port;
      CliRun refused = await().atMost(Duration.ofSeconds(30))
          .failFast("the agent command ended", () -> dev.code() != null)
          .until(() -> CliRun.run("resource", "list", "Artist", "-address", at),
              run -> run.err().startsWith("Error: no ACL token"));
      assertThat(refused.code()).isEqualTo(1);
      assertThat(CliRun.run("acl", "bootstrap", "-address", at).code()).isZero();
    } finally {
      dev.interruptAndJoin();
    }
  }
}
