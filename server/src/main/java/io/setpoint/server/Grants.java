package io.setpoint.server;

import io.setpoint.api.acl.v1.Policy;
import io.setpoint.api.acl.v1.Rule;
import io.setpoint.api.v1.Tenancy;
import io.setpoint.api.v1.Type;
import io.setpoint.resource.AclHooks.Permission;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * One policy, compiled for quick checks: its rules with parsed type and tenancy patterns, and its
 * operator level. Built only from validated policies (validation refuses a rule that does not
 * parse, so none is stored); one that still does not parse is left out.
 */
record Grants(List<CompiledRule> rules, boolean operatorRead, boolean operatorWrite) {
  /** The per-type permissions a rule grants: {@link Permission#READ}, {@code WRITE}, {@code LIST}. */
  static final Set<Permission> PER_TYPE = EnumSet.of(Permission.READ, Permission.WRITE, Permission.LIST);
  /** The values of a policy's {@code operator} field. */
  static final String OPERATOR_READ = "read";
  static final String OPERATOR_WRITE = "write";
  /** The values of a rule's {@code effect} field (empty means allow). */
  static final String ALLOW = "allow";
  static final String DENY = "deny";

  record CompiledRule(TypePattern type, TenancyPattern tenancy, String namePrefix, Set<Permission> permissions,
      boolean deny) {
    /**
     * Whether the rule names {@code permission} on {@code name} of {@code type} in {@code tenancy}.
     * An allow rule needs only to overlap a listing's tenancy, a deny rule must cover all of it;
     * the name prefix does not limit {@code list}, which names no resource.
     */
    boolean applies(Permission permission, Type type, Tenancy tenancy, String name) {
      return permissions.contains(permission)
          && this.type.matches(type)
          && (deny ? this.tenancy.covers(tenancy) : this.tenancy.overlaps(tenancy))
          && (permission == Permission.LIST || name.startsWith(namePrefix));
    }
  }

  static Grants compile(Policy policy) {
    List<CompiledRule> rules = new ArrayList<>();
    for (Rule rule : policy.getRulesList()) {
      Set<Permission> permissions = EnumSet.noneOf(Permission.class);
      rule.getPermissionsList().forEach(label -> perType(label).ifPresent(permissions::add));
      if (TenancyPattern.problem(rule.getPartition()).isPresent()
          || TenancyPattern.problem(rule.getNamespace()).isPresent()) {
        continue; // validation keeps these out; a stored one grants nothing
      }
      try {
        rules.add(new CompiledRule(TypePattern.parse(rule.getType()),
            new TenancyPattern(rule.getPartition(), rule.getNamespace()), rule.getNamePrefix(), permissions,
            rule.getEffect().equals(DENY)));
      } catch (IllegalArgumentException unparsable) {
        // validation keeps these out too
      }
    }
    boolean write = policy.getOperator().equals(OPERATOR_WRITE);
    return new Grants(List.copyOf(rules), write || policy.getOperator().equals(OPERATOR_READ), write);
  }

  /** The per-type permission a rule's label names ({@code read}, {@code write}, {@code list}). */
  static Optional<Permission> perType(String label) {
    return PER_TYPE.stream().filter(p -> p.label().equals(label)).findFirst();
  }

  /** Whether an allow rule of this policy grants {@code permission}; the operator levels too. */
  boolean allows(Permission permission, Type type, Tenancy tenancy, String name) {
    return switch (permission) {
      case OPERATOR_READ -> operatorRead;
      case OPERATOR_WRITE -> operatorWrite;
      case READ, WRITE, LIST -> rules.stream().anyMatch(rule -> !rule.deny() && rule.applies(permission, type, tenancy, name));
    };
  }

  /** Whether a deny rule of this policy takes {@code permission} away (never an operator one). */
  boolean denies(Permission permission, Type type, Tenancy tenancy, String name) {
    return rules.stream().anyMatch(rule -> rule.deny() && rule.applies(permission, type, tenancy, name));
  }
}
