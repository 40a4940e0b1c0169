package io.setpoint.storage.engine;

import io.setpoint.api.Tenancies;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Tenancy;
import io.setpoint.api.v1.Type;

/**
 * Storage keys: {@code group NUL kind NUL partition NUL namespace NUL name}. They sort by type, then
 * tenancy, then name, so a query with concrete levels is one contiguous range. The group version
 * is not part of the key: one name holds one resource whatever its version.
 */
final class StoreKeys {
  private static final char SEP = '\0';
  /** Sorts after every character a key can hold (keys are ASCII). */
  private static final char END = '\uffff';

  private StoreKeys() {}

  static String of(ID id) {
    Type t = id.getType();
    Tenancy tn = id.getTenancy();
    return t.getGroup() + SEP + t.getKind() + SEP + tn.getPartition() + SEP + tn.getNamespace() + SEP
        + id.getName();
  }

  /** The group-and-kind part every key of {@code type} starts with. */
  static String typePrefix(Type type) {
    return type.getGroup() + SEP + type.getKind() + SEP;
  }

  /**
   * The longest prefix every key matching the query shares: wildcard levels stop it early, and the
   * name prefix extends it when both levels are concrete.
   */
  static String rangePrefix(Type type, Tenancy tenancy, String namePrefix) {
    String prefix = typePrefix(type);
    if (tenancy.getPartition().equals(Tenancies.WILDCARD)) {
      return prefix;
    }
    prefix += tenancy.getPartition() + SEP;
    if (tenancy.getNamespace().equals(Tenancies.WILDCARD)) {
      return prefix;
    }
    return prefix + tenancy.getNamespace() + SEP + namePrefix;
  }

  /** The first key after every key that starts with {@code prefix}. */
  static String rangeEnd(String prefix) {
    return prefix + END;
  }

  /** The group-and-kind part of {@code key}. */
  static String typePrefixOf(String key) {
    int first = key.indexOf(SEP);
    return key.substring(0, key.indexOf(SEP, first + 1) + 1);
  }
}
