package io.setpoint.server;

import com.linecorp.armeria.common.QueryParams;
import io.setpoint.api.Echo;
import io.setpoint.api.v1.HashRange;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Tenancy;
import io.setpoint.api.v1.Type;
import io.setpoint.resource.ValidationException;
import io.setpoint.resource.Violations;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The query parameters of one request, checked against those its route takes: an unknown or
 * repeated parameter is a 400 naming it, as an unknown JSON field is.
 */
final class Query {
  private final QueryParams params;

  private Query(QueryParams params) {
    this.params = params;
  }

  /** @throws ValidationException naming each parameter not in {@code allowed} or given twice */
  static Query of(QueryParams params, Set<String> allowed) {
    Violations v = Violations.at("");
    for (String name : params.names()) {
      List<String> values = params.getAll(name);
      if (!allowed.contains(name)) {
        v.add(name, "unknown-parameter", "unknown query parameter; this route takes "
            + (allowed.isEmpty() ? "none" : String.join(", ", allowed.stream().sorted().toList())));
      } else if (values.size() > 1) {
        v.add(name, "repeated", "given " + values.size() + " times; give it at most once");
      }
    }
    v.throwIfAny();
    return new Query(params);
  }

  /** The id of {@code name}, a {@code type}, in the tenancy and with the uid the parameters give. */
  ID id(Type type, String name) {
    return ID.newBuilder().setType(type).setName(name).setTenancy(tenancy()).setUid(string("uid")).build();
  }

  /** The tenancy of {@code partition} and {@code namespace}, each empty when absent. */
  Tenancy tenancy() {
    return Tenancy.newBuilder().setPartition(string("partition")).setNamespace(string("namespace")).build();
  }

  boolean has(String name) {
    return params.contains(name);
  }

  /** The parameter's value, or empty. */
  String string(String name) {
    String value = params.get(name);
    return value == null ? "" : value;
  }

  /** {@code true} when given as {@code ?name}, {@code ?name=} or {@code ?name=true}. */
  boolean flag(String name) {
    String value = params.get(name);
    if (value == null || value.equals("false")) {
      return false;
    }
    if (value.isEmpty() || value.equals("true")) {
      return true;
    }
    throw ValidationException.of(name, "boolean", Echo.quote(value) + " must be true or false");
  }

  /** A non-negative number below 2^32, or 0 when absent. */
  int uint32(String name) {
    String value = params.get(name);
    if (value == null || value.isEmpty()) {
      return 0;
    }
    try {
      long n = Long.parseLong(value);
      if (n >= 0 && n <= 0xFFFF_FFFFL) {
        return (int) n;
      }
    } catch (NumberFormatException e) {
      // answered below
    }
    throw ValidationException.of(name, "uint32", Echo.quote(value) + " must be a number from 0 to 4294967295");
  }

  /**
   * Shard hash ranges written {@code START-END,START-END} (each {@code [START, END)}), none when
   * absent; the resource service checks that each lies in the hash space.
   */
  List<HashRange> hashRanges(String name) {
    String value = params.get(name);
    if (value == null || value.isEmpty()) {
      return List.of();
    }
    List<HashRange> out = new ArrayList<>();
    for (String part : value.split(",", -1)) {
      int dash = part.indexOf('-');
      try {
        out.add(HashRange.newBuilder()
            .setStart(Long.parseUnsignedLong(part.substring(0, dash)))
            .setEnd(Long.parseUnsignedLong(part.substring(dash + 1)))
            .build());
      } catch (RuntimeException e) {
        throw ValidationException.of(name, "hash-ranges", Echo.quote(value)
            + " must be ranges START-END separated by commas, such as 0-2147483648,2147483648-4294967296");
      }
    }
    return out;
  }
}
