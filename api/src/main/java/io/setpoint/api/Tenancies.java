package io.setpoint.api;

import io.setpoint.api.v1.Scope;
import io.setpoint.api.v1.Tenancy;

/** Tenancy constants and the defaulting rules of each {@link Scope}. */
public final class Tenancies {
  /** The value an empty partition or namespace takes when the scope needs one. */
  public static final String DEFAULT = "default";
  /** Matches every partition or namespace; only List and WatchList accept it. */
  public static final String WILDCARD = "*";

  /** The empty tenancy of a cluster-scoped resource. */
  public static final Tenancy CLUSTER = Tenancy.getDefaultInstance();

  private Tenancies() {}

  /** A tenancy from its two parts. */
  public static Tenancy of(String partition, String namespace) {
    return Tenancy.newBuilder().setPartition(partition).setNamespace(namespace).build();
  }

  /** The tenancy of partition {@code partition} with no namespace. */
  public static Tenancy partition(String partition) {
    return of(partition, "");
  }

  /** Matches everything a scope allows: {@code *} where the scope has a level, empty elsewhere. */
  public static Tenancy wildcard(Scope scope) {
    return switch (scope) {
      case SCOPE_NAMESPACE -> of(WILDCARD, WILDCARD);
      case SCOPE_PARTITION -> partition(WILDCARD);
      default -> CLUSTER;
    };
  }

  /**
   * Fills the empty levels that {@code scope} uses with {@link #DEFAULT}. Levels the scope does
   * not use are left as they are, so validation can reject them.
   */
  public static Tenancy defaulted(Tenancy tenancy, Scope scope) {
    boolean partitioned = scope == Scope.SCOPE_PARTITION || scope == Scope.SCOPE_NAMESPACE;
    boolean namespaced = scope == Scope.SCOPE_NAMESPACE;
    String partition = tenancy.getPartition();
    String namespace = tenancy.getNamespace();
    if (partitioned && partition.isEmpty()) {
      partition = DEFAULT;
    }
    if (namespaced && namespace.isEmpty()) {
      namespace = DEFAULT;
    }
    if (partition.equals(tenancy.getPartition()) && namespace.equals(tenancy.getNamespace())) {
      return tenancy;
    }
    return of(partition, namespace);
  }

  /** True when {@code tenancy} (which may hold wildcards) matches the concrete {@code candidate}. */
  public static boolean matches(Tenancy tenancy, Tenancy candidate) {
    return matchesLevel(tenancy.getPartition(), candidate.getPartition())
        && matchesLevel(tenancy.getNamespace(), candidate.getNamespace());
  }

  private static boolean matchesLevel(String pattern, String value) {
    return pattern.equals(WILDCARD) || pattern.equals(value);
  }

  /** {@code partition/namespace}, {@code partition} or an empty string, as the scope has it. */
  public static String format(Tenancy tenancy) {
    if (tenancy.getNamespace().isEmpty()) {
      return tenancy.getPartition();
    }
    return tenancy.getPartition() + "/" + tenancy.getNamespace();
  }
}
