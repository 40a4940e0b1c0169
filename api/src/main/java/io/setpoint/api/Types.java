package io.setpoint.api;

import io.setpoint.api.v1.Type;
import java.util.regex.Pattern;

/** Builds, parses and compares resource {@link Type}s, written {@code group.version.Kind}. */
public final class Types {
  /** The rule a type's group follows. */
  public static final Pattern GROUP = Pattern.compile("^[a-z][a-z0-9_]+$");
  /** The rule a type's group version follows. */
  public static final Pattern GROUP_VERSION = Pattern.compile("^v([a-z0-9]+)?[0-9]$");
  /** The rule a type's kind follows. */
  public static final Pattern KIND = Pattern.compile("^[A-Z][A-Za-z0-9]+$");

  /** {@code core.v1.TypeDefinition}: the resources that add types to a running server. */
  public static final Type TYPE_DEFINITION = of("core", "v1", "TypeDefinition");
  /**
   * {@code core.v1.Lease}: leader-election leases, which fence writes ({@code Fence}), and the
   * leases with which the instances of a generic loop split its keys.
   */
  public static final Type LEASE = of("core", "v1", "Lease");

  private Types() {}

  /**
   * The name of the {@code core.v1.TypeDefinition} that defines {@code type}: its parts,
   * lower-cased, joined with {@code -} ({@code garden.v1.Plant} is {@code garden-v1-plant}).
   */
  public static String definitionName(Type type) {
    return (type.getGroup().replace('_', '-') + "-" + type.getGroupVersion() + "-" + type.getKind())
        .toLowerCase(java.util.Locale.ROOT);
  }

  /** A type from its three parts; does not validate them. */
  public static Type of(String group, String groupVersion, String kind) {
    return Type.newBuilder().setGroup(group).setGroupVersion(groupVersion).setKind(kind).build();
  }

  /**
   * Parses {@code group.version.Kind}.
   *
   * @throws IllegalArgumentException naming the part that breaks its rule
   */
  public static Type parse(String text) {
    String[] parts = text.split("\\.", -1);
    if (parts.length != 3) {
      throw new IllegalArgumentException(
          "type " + Echo.quote(text) + " must be written group.version.Kind, e.g. demo.v2.Artist");
    }
    Type type = of(parts[0], parts[1], parts[2]);
    String problem = problem(type);
    if (problem != null) {
      throw new IllegalArgumentException("type " + Echo.quote(text) + ": " + problem);
    }
    return type;
  }

  /**
   * Says which part of {@code type} breaks its rule, or returns null when the type is well formed.
   * The answer names the proto field ({@code group}, {@code group_version}, {@code kind}).
   */
  public static String problem(Type type) {
    if (!GROUP.matcher(type.getGroup()).matches()) {
      return "group " + Echo.quote(type.getGroup()) + " must match " + GROUP.pattern();
    }
    if (!GROUP_VERSION.matcher(type.getGroupVersion()).matches()) {
      return "group_version " + Echo.quote(type.getGroupVersion()) + " must match " + GROUP_VERSION.pattern();
    }
    if (!KIND.matcher(type.getKind()).matches()) {
      return "kind " + Echo.quote(type.getKind()) + " must match " + KIND.pattern();
    }
    return null;
  }

  /** {@code group.version.Kind}. */
  public static String format(Type type) {
    return type.getGroup() + "." + type.getGroupVersion() + "." + type.getKind();
  }

  /** True when both types have the same group and kind, whatever their versions. */
  public static boolean sameGroupKind(Type a, Type b) {
    return a.getGroup().equals(b.getGroup()) && a.getKind().equals(b.getKind());
  }
}
