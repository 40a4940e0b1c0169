package io.setpoint.server;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * What changes between two versions of a type's data message that stored data may not survive:
 * a field removed, or a field number re-used with another type or cardinality. Renamed fields and
 * new fields are compatible (the store keeps binary protobuf, where only numbers and wire types
 * count). Nested messages are compared field by field along the paths that reach them.
 */
final class Compatibility {
  private Compatibility() {}

  /** One change; {@code path} names the field in the old message ({@code leaves.color}). */
  record Change(String path, Kind kind, String description) {}

  /** Whether the change loses the field's stored values or re-reads them as something else. */
  enum Kind {
    REMOVED,
    RETYPED
  }

  /** The changes from {@code before} to {@code after}, in field order. */
  static List<Change> changes(Descriptor before, Descriptor after) {
    List<Change> out = new ArrayList<>();
    compare(before, after, "", new HashSet<>(), out);
    return out;
  }

  private static void compare(Descriptor before, Descriptor after, String prefix, Set<String> seen, List<Change> out) {
    if (!seen.add(before.getFullName() + "->" + after.getFullName())) {
      return; // a recursive message, compared already along a shorter path
    }
    for (FieldDescriptor old : before.getFields()) {
      String path = prefix + old.getName();
      FieldDescriptor now = after.findFieldByNumber(old.getNumber());
      if (now == null) {
        out.add(new Change(path, Kind.REMOVED, "field " + old.getNumber() + " (" + path + ") is removed"));
      } else if (!shape(old).equals(shape(now))) {
        out.add(new Change(path, Kind.RETYPED, "field " + old.getNumber() + " (" + path + ") changes from "
            + shape(old) + " to " + shape(now)));
      } else if (old.getJavaType() == FieldDescriptor.JavaType.MESSAGE) {
        compare(old.getMessageType(), now.getMessageType(), path + ".", seen, out);
      }
    }
  }

  /** {@code repeated string}, {@code map<string, int32>}, {@code acme.garden.v1.Leaf}: what a field holds. */
  static String shape(FieldDescriptor field) {
    if (field.isMapField()) {
      Descriptor entry = field.getMessageType();
      return "map<" + shape(entry.findFieldByNumber(1)) + ", " + shape(entry.findFieldByNumber(2)) + ">";
    }
    String element = switch (field.getJavaType()) {
      case MESSAGE -> field.getMessageType().getFullName();
      case ENUM -> field.getEnumType().getFullName();
      default -> field.getType().name().toLowerCase(java.util.Locale.ROOT);
    };
    return field.isRepeated() ? "repeated " + element : element;
  }
}
