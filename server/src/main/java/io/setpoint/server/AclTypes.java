package io.setpoint.server;

import io.setpoint.api.Types;
import io.setpoint.api.acl.v1.Bootstrap;
import io.setpoint.api.acl.v1.Policy;
import io.setpoint.api.acl.v1.Rule;
import io.setpoint.api.acl.v1.Token;
import io.setpoint.api.v1.Type;
import io.setpoint.resource.AclHooks.Permission;
import io.setpoint.resource.Hooks;
import io.setpoint.resource.Registration;
import io.setpoint.resource.Registry;
import io.setpoint.resource.Violations;
import java.util.HashSet;
import java.util.Set;

/**
 * The ACL types, cluster-scoped, registered by every agent (with ACLs on or off, so policies can be
 * prepared before ACLs are turned on). They have no ACL hooks of their own, so reading them needs
 * {@code operator:read} and writing them {@code operator:write}: no per-type rule, not even
 * {@code *.*.*}, reaches them, so a token cannot grant itself more than it has.
 */
public final class AclTypes {
  /** {@code acl.v1.Policy}: rules granting permissions. */
  public static final Type POLICY = Types.of("acl", "v1", "Policy");
  /** {@code acl.v1.Token}: a credential linking to policies; stores its secret's hash only. */
  public static final Type TOKEN = Types.of("acl", "v1", "Token");
  /** {@code acl.v1.Bootstrap}: the record that the first management token was created. */
  public static final Type BOOTSTRAP = Types.of("acl", "v1", "Bootstrap");
  /** The name of the one {@link #BOOTSTRAP} resource. */
  public static final String BOOTSTRAP_NAME = "bootstrap";

  private AclTypes() {}

  /** Registers the ACL types. */
  public static void register(Registry registry) {
    registry
        .register(Registration.of(POLICY, Policy.class)
            .validate(Hooks.decodeAndValidate(Policy.class, (policy, v) -> validate(policy.data(), v)))
            .build())
        .register(Registration.of(TOKEN, Token.class)
            .validate(Hooks.decodeAndValidate(Token.class, (token, v) -> validate(token.data(), v)))
            .build())
        .register(Registration.of(BOOTSTRAP, Bootstrap.class)
            .validate(Hooks.decodeAndValidate(Bootstrap.class,
                (marker, v) -> v.requireNonEmpty("token", marker.data().getToken())))
            .build());
  }

  private static void validate(Policy policy, Violations v) {
    for (int i = 0; i < policy.getRulesCount(); i++) {
      Rule rule = policy.getRules(i);
      Violations at = v.index("rules", i);
      if (rule.getType().isEmpty()) {
        at.add("type", "required", "must be a type pattern such as demo.v2.Artist, demo.*.* or *.*.*");
      } else {
        try {
          TypePattern.parse(rule.getType());
        } catch (IllegalArgumentException e) {
          at.add("type", "type-pattern", e.getMessage());
        }
      }
      if (!Rules.NAME_PREFIX.matcher(rule.getNamePrefix()).matches()) {
        at.add("name_prefix", "name-prefix", "must be the start of a name: lowercase letters, digits and -");
      }
      if (rule.getPermissionsCount() == 0) {
        at.add("permissions", "required", "must list at least one of read, write, list");
      }
      for (int p = 0; p < rule.getPermissionsCount(); p++) {
        if (Grants.perType(rule.getPermissions(p)).isEmpty()) {
          at.add("permissions[" + p + "]", "permission",
              "\"" + rule.getPermissions(p) + "\" must be read, write or list (operator permissions go in operator)");
        }
      }
      TenancyPattern.problem(rule.getPartition()).ifPresent(problem -> at.add("partition", "tenancy-pattern", problem));
      TenancyPattern.problem(rule.getNamespace()).ifPresent(problem -> at.add("namespace", "tenancy-pattern", problem));
      String effect = rule.getEffect();
      if (!effect.isEmpty() && !effect.equals(Grants.ALLOW) && !effect.equals(Grants.DENY)) {
        at.add("effect", "effect", "\"" + effect + "\" must be allow, deny or empty (allow)");
      } else if (effect.equals(Grants.DENY) && !rule.getNamePrefix().isEmpty()
          && rule.getPermissionsList().contains(Permission.LIST.label())) {
        at.add("name_prefix", "deny-list", "a deny rule with list cannot have a name prefix: list names no resource, so it "
            + "would deny listing every name; deny read on these names to leave them out of lists");
      }
    }
    String operator = policy.getOperator();
    if (!operator.isEmpty() && !operator.equals(Grants.OPERATOR_READ) && !operator.equals(Grants.OPERATOR_WRITE)) {
      v.add("operator", "operator", "\"" + operator + "\" must be read, write or empty");
    }
  }

  private static void validate(Token token, Violations v) {
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < token.getPoliciesCount(); i++) {
      String policy = token.getPolicies(i);
      if (!Rules.DNS_LABEL.matcher(policy).matches()) {
        v.add("policies[" + i + "]", "dns-label", "\"" + policy + "\" must name an acl.v1.Policy (a DNS label)");
      } else if (!seen.add(policy)) {
        v.add("policies[" + i + "]", "unique", "\"" + policy + "\" is listed twice");
      }
    }
    Set<String> identities = new HashSet<>();
    for (int i = 0; i < token.getIdentitiesCount(); i++) {
      String identity = token.getIdentities(i);
      try {
        if (!identities.add(ClientIdentity.key(identity))) {
          v.add("identities[" + i + "]", "unique", "\"" + identity + "\" is listed twice");
        }
      } catch (IllegalArgumentException e) {
        v.add("identities[" + i + "]", "identity", e.getMessage());
      }
    }
    if (token.getSecretHash().isEmpty()) {
      v.add("secret_hash", "required",
          "must be set: create tokens with 'setpoint acl token create' (AclService.CreateToken), and keep the hash when updating one");
    } else if (!Secrets.isHash(token.getSecretHash())) {
      v.add("secret_hash", "sha256-hex", "must be the SHA-256 of the secret in 64 lowercase hex digits, never the secret");
    }
  }
}
