package io.setpoint.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.Any;
import io.grpc.Status;
import io.setpoint.api.Ids;
import io.setpoint.api.acl.v1.Policy;
import io.setpoint.api.acl.v1.Rule;
import io.setpoint.api.acl.v1.Token;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Type;
import io.setpoint.client.SetpointClient;
import io.setpoint.client.SetpointException;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Tenancy patterns, effects and identities: what validation accepts, and each refusal's field, rule and message. */
class AclScopeValidationTest {
  private static final String HASH = "9b8380a48807f3fc88fe450a9a31c371e8ae2fa1cdef75ec57a23bfea3a32e1d";
  static Agent agent;
  static SetpointClient admin;

  @BeforeAll
  static void start() {
    agent = Agent.builder().port(0).start();
    try (SetpointClient anonymous = SetpointClient.connect("127.0.0.1:" + agent.port())) {
      admin = SetpointClient.builder().address("127.0.0.1:" + agent.port()).token(anonymous.bootstrapAcls().getSecret()).build();
    }
  }

  @AfterAll
  static void stop() {
    admin.close();
    agent.close();
  }

  private static Resource resource(Type type, com.google.protobuf.Message data) {
    return Resource.newBuilder().setId(Ids.of(type, "scoped")).setData(Any.pack(data)).build();
  }

  private static Policy policy(Rule.Builder... rules) {
    Policy.Builder policy = Policy.newBuilder();
    for (Rule.Builder rule : rules) {
      policy.addRules(rule.setType(rule.getType().isEmpty() ? "demo.*.*" : rule.getType()).addPermissions("read"));
    }
    return policy.build();
  }

  /** The violation of writing {@code data}: one, on {@code field}, with {@code rule} and {@code message}. */
  private static void refused(Type type, com.google.protobuf.Message data, String field, String rule, String message) {
    assertThatThrownBy(() -> admin.write(resource(type, data))).isInstanceOfSatisfying(SetpointException.class, e -> {
      assertThat(e.code()).isEqualTo(Status.Code.INVALID_ARGUMENT);
      assertThat(e.violations()).hasSize(1);
      SetpointException.FieldViolation violation = e.violations().get(0);
      assertThat(violation.field()).isEqualTo(field);
      assertThat(violation.description()).isEqualTo(message + " (rule: " + rule + ")");
    });
  }

  @Test
  void tenancyPatternsAreEmptyStarANameOrAPrefix() {
    for (String pattern : List.of("", "*", "team-a", "team-*", "t*", "0*")) {
      admin.write(resource(AclTypes.POLICY, policy(Rule.newBuilder().setPartition(pattern).setNamespace(pattern))));
    }
    String rule = "must be empty (every tenancy), * (any), a name such as team-a (a DNS label) or a prefix ending in * "
        + "such as team-*";
    refused(AclTypes.POLICY, policy(Rule.newBuilder().setNamespace("Team_A")),
        "resource.data.rules[0].namespace", "tenancy-pattern", "\"Team_A\" " + rule);
    refused(AclTypes.POLICY, policy(Rule.newBuilder(), Rule.newBuilder().setPartition("*-a")),
        "resource.data.rules[1].partition", "tenancy-pattern", "\"*-a\" " + rule);
    refused(AclTypes.POLICY, policy(Rule.newBuilder().setNamespace("team-*-x")),
        "resource.data.rules[0].namespace", "tenancy-pattern", "\"team-*-x\" " + rule);
    refused(AclTypes.POLICY, policy(Rule.newBuilder().setNamespace("-*")),
        "resource.data.rules[0].namespace", "tenancy-pattern", "\"-*\" " + rule);
    refused(AclTypes.POLICY, policy(Rule.newBuilder().setNamespace("**")),
        "resource.data.rules[0].namespace", "tenancy-pattern", "\"**\" " + rule);
  }

  @Test
  void effectsAreAllowOrDeny() {
    admin.write(resource(AclTypes.POLICY, policy(Rule.newBuilder().setEffect("allow"), Rule.newBuilder().setEffect("deny"))));
    refused(AclTypes.POLICY, policy(Rule.newBuilder().setEffect("Deny")),
        "resource.data.rules[0].effect", "effect", "\"Deny\" must be allow, deny or empty (allow)");
    Policy denyListByName = Policy.newBuilder().addRules(Rule.newBuilder().setType("demo.v2.Artist").setEffect("deny")
        .setNamePrefix("secret").addPermissions("list")).build();
    refused(AclTypes.POLICY, denyListByName, "resource.data.rules[0].name_prefix", "deny-list",
        "a deny rule with list cannot have a name prefix: list names no resource, so it would deny listing every name; "
            + "deny read on these names to leave them out of lists");
  }

  private static Token token(String... identities) {
    return Token.newBuilder().setSecretHash(HASH).addAllIdentities(List.of(identities)).build();
  }

  @Test
  void identitiesAreSpiffeIdsOrSubjects() {
    admin.write(resource(AclTypes.TOKEN, token("spiffe://example.org/team-a/ci", "spiffe://prod.example-1.org",
        "CN=alice,O=Team B", "CN=bob+UID=7,OU=ops,DC=example,DC=org")));
    refused(AclTypes.TOKEN, token("alice"), "resource.data.identities[0]", "identity",
        "\"alice\" must be a SPIFFE ID (spiffe://trust-domain/path) or a certificate subject such as CN=alice,O=Team A "
            + "(improperly specified input name: alice)");
    refused(AclTypes.TOKEN, token("spiffe://Example.org/ci"), "resource.data.identities[0]", "identity",
        "\"spiffe://Example.org/ci\" is not a SPIFFE ID: the trust domain \"Example.org\" must be lowercase letters, digits, ., _ and -");
    refused(AclTypes.TOKEN, token("SPIFFE://example.org/ci"), "resource.data.identities[0]", "identity",
        "\"SPIFFE://example.org/ci\" is not a SPIFFE ID: the scheme must be lowercase spiffe://");
    refused(AclTypes.TOKEN, token("spiffe://example.org/team-a//ci"), "resource.data.identities[0]", "identity",
        "\"spiffe://example.org/team-a//ci\" is not a SPIFFE ID: the path segment \"\" must be non-empty letters, digits, "
            + "., _ and - (not . or ..)");
    refused(AclTypes.TOKEN, token("spiffe://example.org/ci?x=1"), "resource.data.identities[0]", "identity",
        "\"spiffe://example.org/ci?x=1\" is not a SPIFFE ID: the path segment \"ci?x=1\" must be non-empty letters, digits, "
            + "., _ and - (not . or ..)");
    refused(AclTypes.TOKEN, token("CN=alice,O=Team B", "cn=Alice, o=team b"), "resource.data.identities[1]", "unique",
        "\"cn=Alice, o=team b\" is listed twice");
  }
}
