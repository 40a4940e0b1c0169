package io.setpoint.server;

import static io.setpoint.server.AclFixture.rule;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.Any;
import io.grpc.Status;
import io.setpoint.api.Ids;
import io.setpoint.api.acl.v1.BootstrapResponse;
import io.setpoint.api.acl.v1.CreateTokenRequest;
import io.setpoint.api.acl.v1.CreateTokenResponse;
import io.setpoint.api.acl.v1.Policy;
import io.setpoint.api.acl.v1.Rule;
import io.setpoint.api.acl.v1.Token;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Tenancy;
import io.setpoint.api.v1.Type;
import io.setpoint.client.SetpointClient;
import io.setpoint.client.SetpointException;
import io.setpoint.demo.DemoTypes;
import io.setpoint.storage.Backend;
import io.setpoint.storage.Consistency;
import io.setpoint.storage.ForwardingBackend;
import io.setpoint.storage.memory.MemoryBackend;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/**
 * Bootstrap happens once per store, also across restarts; secrets are shown once and stored only
 * as hashes; the ACL types' validation names the field and rule.
 */
class AclBootstrapTest {
  private static SetpointClient client(Agent agent, String token) {
    return SetpointClient.builder().address("127.0.0.1:" + agent.port()).token(token).build();
  }

  private static String sha256(String text) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
  }

  private static Token token(SetpointClient client, String name) throws Exception {
    return client.readConsistent(Ids.of(AclTypes.TOKEN, name)).getData().unpack(Token.class);
  }

  @Test
  void bootstrapRefusesASecondTimeAlsoAfterARestartOnTheSameStore() {
    MemoryBackend store = new MemoryBackend();
    String management;
    try (Agent first = Agent.builder().port(0).types(DemoTypes::register).backend(new KeptOpen(store)).start();
        SetpointClient anonymous = client(first, null)) {
      management = anonymous.bootstrapAcls().getSecret();
      assertThatThrownBy(anonymous::bootstrapAcls).isInstanceOfSatisfying(SetpointException.class, e -> {
        assertThat(e.code()).isEqualTo(Status.Code.FAILED_PRECONDITION);
        assertThat(e.description()).startsWith("ACLs were bootstrapped already (management token bootstrap-");
      });
    }
    try (Agent restarted = Agent.builder().port(0).types(DemoTypes::register).backend(store).start();
        SetpointClient anonymous = client(restarted, null);
        SetpointClient admin = client(restarted, management)) {
      assertThatThrownBy(anonymous::bootstrapAcls).isInstanceOfSatisfying(SetpointException.class,
          e -> assertThat(e.code()).isEqualTo(Status.Code.FAILED_PRECONDITION));
      assertThat(admin.types().getTypesCount()).as("the bootstrap token survives the restart").isPositive();
    }
  }

  @Test
  void secretsAreShownOnceAndStoredOnlyAsTheirSha256() throws Exception {
    MemoryBackend store = new MemoryBackend();
    try (Agent agent = Agent.builder().port(0).backend(new KeptOpen(store)).start();
        SetpointClient anonymous = client(agent, null)) {
      BootstrapResponse bootstrap = anonymous.bootstrapAcls();
      try (SetpointClient admin = client(agent, bootstrap.getSecret())) {
        admin.write(Resource.newBuilder().setId(Ids.of(AclTypes.POLICY, "p"))
            .setData(Any.pack(Policy.newBuilder().addRules(rule("demo.*.*", "", "read")).build())).build());
        CreateTokenResponse created = admin.createToken(CreateTokenRequest.newBuilder().setName("t").addPolicies("p").build());

        assertThat(bootstrap.getSecret()).startsWith("spt_").hasSize(4 + 43);
        assertThat(created.getSecret()).startsWith("spt_").isNotEqualTo(bootstrap.getSecret());
        Token stored = token(admin, "t");
        assertThat(stored.getSecretHash()).isEqualTo(sha256(created.getSecret()));
        assertThat(created.getToken().getData().unpack(Token.class).getSecretHash()).isEqualTo(stored.getSecretHash());
        assertThat(token(admin, bootstrap.getToken().getId().getName()).getSecretHash())
            .isEqualTo(sha256(bootstrap.getSecret()));
        assertThat(token(admin, bootstrap.getToken().getId().getName()).getManagement()).isTrue();
      }
      String everything = everythingStored(store, agent);
      assertThat(everything).doesNotContain(bootstrap.getSecret()).doesNotContain(bootstrap.getSecret().substring(4));
    }
  }

  /** Every resource of every type in the store, as text. */
  private static String everythingStored(Backend store, Agent agent) {
    StringBuilder out = new StringBuilder();
    agent.registry().types().forEach(reg -> store.list(Consistency.STRONG, reg.type(),
            io.setpoint.api.Tenancies.wildcard(reg.scope()), "", 0, "").resources()
        .forEach(r -> out.append(r).append(new String(r.toByteArray(), StandardCharsets.ISO_8859_1))));
    return out.toString();
  }

  @Test
  void withAclsOffTheAclServiceRefusesToCreateTokens() {
    try (Agent agent = Agent.builder().port(0).acls(false).start(); SetpointClient anonymous = client(agent, null)) {
      assertThatThrownBy(anonymous::bootstrapAcls).isInstanceOfSatisfying(SetpointException.class, e -> {
        assertThat(e.code()).isEqualTo(Status.Code.FAILED_PRECONDITION);
        assertThat(e.description()).startsWith("ACLs are off on this agent");
      });
    }
  }

  @Test
  void aclTypesNameTheFieldAndRuleOfEveryMistake() {
    try (Agent agent = Agent.builder().port(0).start(); SetpointClient anonymous = client(agent, null);
        SetpointClient admin = client(agent, anonymous.bootstrapAcls().getSecret())) {
      assertInvalid(admin, AclTypes.TOKEN, Token.newBuilder().addPolicies("Bad Name").build(),
          "resource.data.policies[0]", "resource.data.secret_hash");
      assertInvalid(admin, AclTypes.TOKEN, Token.newBuilder().setSecretHash("spt_plain-secret").build(),
          "resource.data.secret_hash");
      assertInvalid(admin, AclTypes.POLICY, Policy.newBuilder().setOperator("admin")
              .addRules(Rule.newBuilder().setType("demo.v*.Artist").setNamePrefix("N").addPermissions("delete")).build(),
          "resource.data.rules[0].type", "resource.data.rules[0].name_prefix", "resource.data.rules[0].permissions[0]",
          "resource.data.operator");
      assertInvalid(admin, AclTypes.POLICY, Policy.newBuilder().addRules(Rule.newBuilder().setType("demo.*.*")).build(),
          "resource.data.rules[0].permissions");
    }
  }

  private static void assertInvalid(SetpointClient client, Type type, com.google.protobuf.Message data, String... fields) {
    Resource resource = Resource.newBuilder().setId(Ids.of(type, "bad")).setData(Any.pack(data)).build();
    assertThatThrownBy(() -> client.write(resource)).isInstanceOfSatisfying(SetpointException.class, e -> {
      assertThat(e.code()).isEqualTo(Status.Code.INVALID_ARGUMENT);
      assertThat(e.violations()).extracting(SetpointException.FieldViolation::field).containsExactly(fields);
    });
  }

  @Test
  void aTokenUpdatedThroughWriteKeepsItsSecret() throws Exception {
    try (Agent agent = Agent.builder().port(0).types(DemoTypes::register).start();
        SetpointClient anonymous = client(agent, null);
        SetpointClient admin = client(agent, anonymous.bootstrapAcls().getSecret())) {
      admin.write(Resource.newBuilder().setId(Ids.of(AclTypes.POLICY, "lister"))
          .setData(Any.pack(Policy.newBuilder().addRules(rule("demo.v2.Artist", "", "list")).build())).build());
      String secret = admin.createToken(CreateTokenRequest.newBuilder().setName("grows").build()).getSecret();
      Resource stored = admin.readConsistent(Ids.of(AclTypes.TOKEN, "grows"));
      Token updated = stored.getData().unpack(Token.class).toBuilder().addPolicies("lister").build();
      admin.write(stored.toBuilder().setData(Any.pack(updated)).build());

      try (SetpointClient grown = client(agent, secret)) {
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(5)).untilAsserted(() ->
            assertThat(grown.listAll(DemoTypes.ARTIST, Tenancy.getDefaultInstance())).isEmpty());
      }
    }
  }

  /** A store the agent cannot close, so a second agent can start on it: a restart. */
  private static final class KeptOpen extends ForwardingBackend {
    KeptOpen(Backend store) {
      super(store);
    }

    @Override
    public void close() {}
  }
}
