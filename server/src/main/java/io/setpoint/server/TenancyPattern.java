package io.setpoint.server;

import io.setpoint.api.Tenancies;
import io.setpoint.api.v1.Tenancy;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Where a policy rule applies: a pattern for the partition and one for the namespace. Each is
 * empty (every tenancy, also types that lack the level), {@code *} (any value of the level), a
 * literal DNS label ({@code team-a}) or a prefix ending in {@code *} ({@code team-*}). A non-empty
 * pattern only matches resources whose type has that level, so a rule scoped to a namespace never
 * reaches cluster-scoped or partition-scoped types.
 */
record TenancyPattern(String partition, String namespace) {
  /** Applies everywhere: the meaning of a rule without tenancy fields. */
  static final TenancyPattern EVERYWHERE = new TenancyPattern("", "");
  private static final Pattern PREFIX = Pattern.compile("^[a-z0-9][-a-z0-9]{0,61}\\*$");
  private static final String RULE = "must be empty (every tenancy), * (any), a name such as team-a "
      + "(a DNS label) or a prefix ending in * such as team-*";

  /**
   * Why {@code pattern} is not a level pattern, or empty when it is one.
   */
  static Optional<String> problem(String pattern) {
    if (pattern.isEmpty() || pattern.equals(Tenancies.WILDCARD) || Rules.DNS_LABEL.matcher(pattern).matches()
        || PREFIX.matcher(pattern).matches()) {
      return Optional.empty();
    }
    return Optional.of("\"" + pattern + "\" " + RULE);
  }

  /**
   * Whether this pattern matches a resource in {@code tenancy}, or, for a listing whose levels
   * may be {@code *}, whether some resource of the listing could match (an allow rule then
   * permits the listing, whose items are checked one by one).
   */
  boolean overlaps(Tenancy tenancy) {
    return overlaps(partition, tenancy.getPartition()) && overlaps(namespace, tenancy.getNamespace());
  }

  /**
   * Whether this pattern matches every resource {@code tenancy} can hold: for a concrete tenancy
   * the same as {@link #overlaps}; for a listing in {@code *}, only when the pattern is {@code *}
   * or empty (a deny rule then refuses the whole listing).
   */
  boolean covers(Tenancy tenancy) {
    return covers(partition, tenancy.getPartition()) && covers(namespace, tenancy.getNamespace());
  }

  private static boolean overlaps(String pattern, String value) {
    if (pattern.isEmpty()) {
      return true;
    }
    if (value.isEmpty()) {
      return false; // the type has no such level
    }
    return value.equals(Tenancies.WILDCARD) || matches(pattern, value);
  }

  private static boolean covers(String pattern, String value) {
    if (pattern.isEmpty()) {
      return true;
    }
    if (value.isEmpty()) {
      return false;
    }
    if (pattern.equals(Tenancies.WILDCARD)) {
      return true;
    }
    return !value.equals(Tenancies.WILDCARD) && matches(pattern, value);
  }

  private static boolean matches(String pattern, String value) {
    if (pattern.equals(Tenancies.WILDCARD)) {
      return true;
    }
    if (pattern.endsWith(Tenancies.WILDCARD)) {
      return value.startsWith(pattern.substring(0, pattern.length() - 1));
    }
    return pattern.equals(value);
  }
}
