package io.setpoint.server;

import io.setpoint.api.acl.v1.Policy;
import io.setpoint.api.acl.v1.Rule;
import io.setpoint.api.v1.Type;
import io.setpoint.resource.AclHooks.Permission;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * One policy, compiled for quick checks: its rules with parsed type patterns, and its operator
 * level. Built only from validated policies; a rule that still does not parse grants nothing.
 */
record Grants(List<CompiledRule> rules, boolean operatorRead, boolean operatorWrite) {
  /** The per-type permissions a rule grants: {@link Permission#READ}, {@code WRITE}, {@code LIST}. */
  static final Set<Permission> PER_TYPE = EnumSet.of(Permission.READ, Permission.WRITE, Permission.LIST);
  /** The values of a policy's {@code operator} field. */
  static final String OPERATOR_READ = "read";
  static final String OPERATOR_WRITE = "write";

  record CompiledRule(TypePattern type, String namePrefix, Set<Permission> permissions) {}

  static Grants compile(Policy policy) {
    List<CompiledRule> rules = new ArrayList<>();
    for (Rule rule : policy.getRulesList()) {
      Set<Permission> permissions = EnumSet.noneOf(Permission.class);
      rule.getPermissionsList().forEach(label -> perType(label).ifPresent(permissions::add));
      try {
        rules.add(new CompiledRule(TypePattern.parse(rule.getType()), rule.getNamePrefix(), permissions));
      } catch (IllegalArgumentException unparsable) {
        // validation keeps these out; a stored one grants nothing
      }
    }
    boolean write = policy.getOperator().equals(OPERATOR_WRITE);
    return new Grants(List.copyOf(rules), write || policy.getOperator().equals(OPERATOR_READ), write);
  }

  /** The per-type permission a rule's label names ({@code read}, {@code write}, {@code list}). */
  static Optional<Permission> perType(String label) {
    return PER_TYPE.stream().filter(p -> p.label().equals(label)).findFirst();
  }

  /**
   * Whether this policy allows {@code permission} on {@code name} of {@code type}. A rule's name
   * prefix does not limit {@code list}, which names no resource.
   */
  boolean allows(Permission permission, Type type, String name) {
    return switch (permission) {
      case OPERATOR_READ -> operatorRead;
      case OPERATOR_WRITE -> operatorWrite;
      case READ, WRITE, LIST -> rules.stream().anyMatch(rule -> rule.permissions().contains(permission)
          && rule.type().matches(type)
          && (permission == Permission.LIST || name.startsWith(rule.namePrefix())));
    };
  }
}
