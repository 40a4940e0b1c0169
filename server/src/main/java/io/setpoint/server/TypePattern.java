package io.setpoint.server;

import io.setpoint.api.Types;
import io.setpoint.api.v1.Type;
import java.util.regex.Pattern;

/**
 * The {@code type} of a policy rule: {@code group.version.Kind} where each part is a literal or
 * {@code *} ({@code demo.v2.Artist}, {@code demo.*.*}, {@code *.*.*}). Parts are whole: {@code
 * demo.v*.Artist} is not a pattern.
 */
record TypePattern(String group, String groupVersion, String kind) {
  static final String ANY = "*";

  /**
   * Parses a pattern.
   *
   * @throws IllegalArgumentException naming the part that is neither {@code *} nor well formed
   */
  static TypePattern parse(String text) {
    String[] parts = text.split("\\.", -1);
    if (parts.length != 3) {
      throw new IllegalArgumentException(
          "\"" + text + "\" must be group.version.Kind with * for any part, e.g. demo.v2.Artist or demo.*.*");
    }
    check(text, "group", parts[0], Types.GROUP);
    check(text, "group version", parts[1], Types.GROUP_VERSION);
    check(text, "kind", parts[2], Types.KIND);
    return new TypePattern(parts[0], parts[1], parts[2]);
  }

  private static void check(String text, String part, String value, Pattern rule) {
    if (!value.equals(ANY) && !rule.matcher(value).matches()) {
      throw new IllegalArgumentException(
          "\"" + text + "\": " + part + " \"" + value + "\" must be * or match " + rule.pattern());
    }
  }

  boolean matches(Type type) {
    return part(group, type.getGroup()) && part(groupVersion, type.getGroupVersion()) && part(kind, type.getKind());
  }

  private static boolean part(String pattern, String value) {
    return pattern.equals(ANY) || pattern.equals(value);
  }
}
