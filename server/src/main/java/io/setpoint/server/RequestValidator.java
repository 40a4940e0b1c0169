package io.setpoint.server;

import com.google.protobuf.Any;
import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import io.setpoint.api.Echo;
import io.setpoint.api.Resources.Finalizers;
import io.setpoint.api.Shards;
import io.setpoint.api.Tenancies;
import io.setpoint.api.Types;
import io.setpoint.api.v1.Condition;
import io.setpoint.api.v1.Fence;
import io.setpoint.api.v1.HashRange;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Reference;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Scope;
import io.setpoint.api.v1.Status;
import io.setpoint.api.v1.Tenancy;
import io.setpoint.api.v1.Type;
import io.setpoint.resource.Registration;
import io.setpoint.resource.Registry;
import io.setpoint.resource.ValidationException;
import io.setpoint.resource.Violations;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Checks the parts of requests every type shares (ids, tenancies, owners, metadata, statuses,
 * data envelopes) and puts them in canonical form: tenancies defaulted, data re-encoded
 * deterministically. Each check reports the request's field path and the rule it broke.
 */
final class RequestValidator {
  private final Registry registry;

  RequestValidator(Registry registry) {
    this.registry = registry;
  }

  /** The registration of the type of {@code id}, which this validator has checked. */
  Registration<?> registration(ID id) {
    // Validated ids always resolve.
    return registry.resolve(id.getType()).orElseThrow();
  }

  /** The registration of {@code type}, after checking its parts and that it is registered. */
  Registration<?> type(String path, boolean present, Type type) {
    if (!present) {
      throw ValidationException.of(path, "required", "must be set");
    }
    // A registration checks its type's format, so a type that resolves needs no check of its own.
    Registration<?> registered = registry.resolve(type).orElse(null);
    if (registered != null) {
      return registered;
    }
    String problem = Types.problem(type);
    if (problem != null) {
      throw ValidationException.of(path + "." + problem.substring(0, problem.indexOf(' ')), "format", problem);
    }
    throw ValidationException.of(path, "registered", "unknown type " + Echo.bounded(Types.format(type), Echo.MAX_ECHO));
  }

  /**
   * Checks an id that names one resource (no wildcards) and returns it with its tenancy defaulted.
   *
   * @param uidRequired whether the id must name one incarnation
   */
  ID id(String path, boolean present, ID id, boolean uidRequired) {
    Violations v = Violations.at(path);
    if (!present) {
      throw ValidationException.of(path, "required", "must be set");
    }
    Registration<?> reg = type(path + ".type", id.hasType(), id.getType());
    Tenancy tenancy = tenancy(v.field("tenancy"), id.getTenancy(), reg, false);
    name(v, "name", id.getName());
    uid(v, id.getUid(), uidRequired);
    v.throwIfAny();
    return tenancy.equals(id.getTenancy()) ? id : id.toBuilder().setTenancy(tenancy).build();
  }

  /**
   * Checks a tenancy against the scope of {@code reg} and returns it defaulted.
   *
   * @param wildcards whether {@code *} is accepted (List and WatchList only)
   */
  Tenancy tenancy(Violations v, Tenancy tenancy, Registration<?> reg, boolean wildcards) {
    Scope scope = reg.scope();
    Tenancy defaulted = Tenancies.defaulted(tenancy, scope);
    String typeName = Types.format(reg.type());
    if (scope == Scope.SCOPE_CLUSTER && !defaulted.getPartition().isEmpty()) {
      v.add("partition", "scope", "must be empty: " + typeName + " is cluster-scoped");
    } else if (scope != Scope.SCOPE_CLUSTER) {
      level(v, "partition", defaulted.getPartition(), wildcards);
    }
    if (scope != Scope.SCOPE_NAMESPACE && !defaulted.getNamespace().isEmpty()) {
      v.add(
          "namespace",
          "scope",
          "must be empty: " + typeName + " is " + (scope == Scope.SCOPE_CLUSTER ? "cluster" : "partition") + "-scoped");
    } else if (scope == Scope.SCOPE_NAMESPACE) {
      level(v, "namespace", defaulted.getNamespace(), wildcards);
    }
    return defaulted;
  }

  private static void level(Violations v, String field, String value, boolean wildcards) {
    if (value.equals(Tenancies.WILDCARD)) {
      if (!wildcards) {
        v.add(field, "no-wildcard", "wildcard \"*\" is only accepted by List and WatchList");
      }
      return;
    }
    matches(v, field, value, Rules.DNS_LABEL, "dns-label", "a DNS label of at most 63 characters ([a-z0-9]([-a-z0-9]*[a-z0-9])?)");
  }

  static void name(Violations v, String field, String name) {
    if (name.isEmpty()) {
      v.add(field, "required", "must not be empty");
    } else {
      matches(v, field, name, Rules.DNS_LABEL, "dns-label", "a DNS label of at most 63 characters ([a-z0-9]([-a-z0-9]*[a-z0-9])?)");
    }
  }

  /** Checks a write's fence: the name of a lease, its holder and an epoch of at least 1. */
  static Fence fence(String path, Fence fence) {
    Violations v = Violations.at(path);
    name(v, "lease", fence.getLease());
    if (fence.getHolder().isEmpty()) {
      v.add("holder", "required", "must not be empty");
    } else {
      matches(v, "holder", fence.getHolder(), Rules.HOLDER, "holder",
          "at most 253 of [-A-Za-z0-9_.:@], starting and ending with a letter or digit");
    }
    if (fence.getEpoch() == 0) {
      v.add("epoch", "min", "must be at least 1, the epoch of the lease the writer holds");
    }
    v.throwIfAny();
    return fence;
  }

  /** Checks shard hash ranges: each {@code [start, end)} non-empty and within the hash space. */
  static void hashRanges(Violations v, String field, List<HashRange> ranges) {
    if (ranges.size() > Rules.MAX_HASH_RANGES) {
      v.add(field, "max-items", "at most " + Rules.MAX_HASH_RANGES + " ranges are allowed, got " + ranges.size());
      return;
    }
    for (int i = 0; i < ranges.size(); i++) {
      HashRange r = ranges.get(i);
      Violations at = v.index(field, i);
      // uint64 fields: compared unsigned, so 2^64-1 is too large rather than negative.
      if (Long.compareUnsigned(r.getEnd(), Shards.SPACE) > 0) {
        at.add("end", "max", "must be at most " + Shards.SPACE + " (2^32), the end of the hash space");
      } else if (Long.compareUnsigned(r.getStart(), r.getEnd()) >= 0) {
        at.add("start", "range", "must be below end " + r.getEnd() + " (a range is [start, end))");
      }
    }
  }

  static void namePrefix(Violations v, String field, String prefix) {
    matches(v, field, prefix, Rules.NAME_PREFIX, "name-prefix", "at most 63 of [-a-z0-9]");
  }

  private static void uid(Violations v, String uid, boolean required) {
    if (uid.isEmpty()) {
      if (required) {
        v.add("uid", "required", "must be set to the uid of the incarnation");
      }
      return;
    }
    matches(v, "uid", uid, Rules.ULID, "ulid", "a ULID (26 characters of Crockford base32)");
  }

  /** Checks a write's optional request id. */
  static void requestId(String field, String requestId) {
    if (!requestId.isEmpty()) {
      Violations v = Violations.at("");
      matches(v, field, requestId, Rules.REQUEST_ID, "request-id", "at most 128 of [A-Za-z0-9._~:-]");
      v.throwIfAny();
    }
  }

  static void version(Violations v, String field, String version) {
    if (!version.isEmpty()) {
      matches(v, field, version, Rules.VERSION, "version", "a store revision (a positive decimal number)");
    }
  }

  /**
   * Checks everything a Write or MutateAndValidate carries except its data's contents, and returns
   * the resource with its id (and owner) defaulted.
   */
  Resource resource(String path, boolean present, Resource resource) {
    if (!present) {
      throw ValidationException.of(path, "required", "must be set");
    }
    Violations v = Violations.at(path);
    ID id = id(path + ".id", resource.hasId(), resource.getId(), false);
    ID owner = null;
    if (resource.hasOwner()) {
      owner = id(path + ".owner", true, resource.getOwner(), true);
      if (owner.getType().equals(id.getType())
          && owner.getTenancy().equals(id.getTenancy())
          && owner.getName().equals(id.getName())) {
        v.add("owner", "not-self", "a resource cannot own itself");
      }
    }
    version(v, "version", resource.getVersion());
    metadata(v.field("metadata"), resource.getMetadataMap());
    v.throwIfAny();
    if (id == resource.getId() && (owner == null || owner == resource.getOwner())) {
      return resource; // nothing was defaulted
    }
    Resource.Builder out = resource.toBuilder().setId(id);
    if (owner != null) {
      out.setOwner(owner);
    }
    return out.build();
  }

  private static void metadata(Violations v, Map<String, String> metadata) {
    if (metadata.size() > Rules.MAX_METADATA_ENTRIES) {
      v.add("max-entries", "holds " + metadata.size() + " entries; at most " + Rules.MAX_METADATA_ENTRIES + " are allowed");
    }
    for (Map.Entry<String, String> e : metadata.entrySet()) {
      if (!Rules.METADATA_KEY.matcher(e.getKey()).matches()) {
        v.key("", e.getKey()).add("metadata-key", "key must be at most 253 of [-A-Za-z0-9_./], starting and ending alphanumeric");
      } else if (e.getValue().length() > Rules.MAX_METADATA_VALUE) {
        v.key("", e.getKey()).add("max-length", "value must be at most " + Rules.MAX_METADATA_VALUE + " characters");
      } else if (e.getKey().equals(Finalizers.KEY)) {
        for (String finalizer : e.getValue().trim().split("\\s+")) {
          if (!finalizer.isEmpty() && !Rules.METADATA_KEY.matcher(finalizer).matches()) {
            v.key("", e.getKey()).add("finalizer", Echo.quote(finalizer) + " must be a name like a metadata key");
          }
        }
      }
    }
  }

  /** The prefix of every stored {@code Any}'s type URL, as {@code Any.pack} writes it. */
  static final String TYPE_URL_PREFIX = "type.googleapis.com/";

  /**
   * Checks that {@code data} holds the type's registered message, parses, and returns it encoded
   * deterministically, so equal data always has equal bytes. Its type URL is stored as {@code
   * type.googleapis.com/} and the message name, whatever prefix the client chose: Setpoint resolves
   * no type URLs, and a prefix kept as given would be a second, unbounded name for the same type.
   */
  static Any data(String path, Registration<?> reg, boolean present, Any data) {
    if (!present) {
      throw ValidationException.of(path, "required", "must be set to a " + reg.dataMessageName());
    }
    String typeUrl = data.getTypeUrl();
    String messageName = typeUrl.substring(typeUrl.lastIndexOf('/') + 1);
    if (!messageName.equals(reg.dataMessageName())) {
      throw ValidationException.of(
          path,
          "data-type",
          "holds "
              + (typeUrl.isEmpty() ? "no type_url" : Echo.quote(typeUrl))
              + " but "
              + Types.format(reg.type())
              + " needs "
              + reg.dataMessageName());
    }
    try {
      Message message = reg.defaultInstance().getParserForType().parseFrom(data.getValue());
      ByteString canonical = Canonical.bytes(message);
      // Most clients encode canonically already; keep their Any rather than copy the resource.
      String canonicalUrl = TYPE_URL_PREFIX + messageName;
      return canonical.equals(data.getValue()) && canonicalUrl.equals(typeUrl)
          ? data
          : Any.newBuilder().setTypeUrl(canonicalUrl).setValue(canonical).build();
    } catch (InvalidProtocolBufferException e) {
      throw ValidationException.of(path, "decodable", "cannot be decoded as " + reg.dataMessageName() + ": " + e.getMessage());
    }
  }

  /** Checks a status and its status key. */
  static void status(Violations v, String key, boolean present, Status status) {
    if (key.isEmpty()) {
      v.add("key", "required", "must not be empty");
    } else {
      matches(v, "key", key, Rules.STATUS_KEY, "status-key", "at most 253 of [-a-z0-9_./], starting and ending alphanumeric");
    }
    if (!present) {
      v.add("status", "required", "must be set");
      return;
    }
    Violations s = v.field("status");
    if (!status.getObservedGeneration().isEmpty()) {
      matches(s, "observed_generation", status.getObservedGeneration(), Rules.ULID, "ulid", "a ULID (the generation observed)");
    }
    if (status.getConditionsCount() > Rules.MAX_CONDITIONS) {
      s.add("conditions", "max-entries", "at most " + Rules.MAX_CONDITIONS + " conditions are allowed");
    }
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < status.getConditionsCount(); i++) {
      Condition c = status.getConditions(i);
      Violations cv = s.index("conditions", i);
      if (c.getType().isEmpty()) {
        cv.add("type", "required", "must not be empty");
      } else if (matches(cv, "type", c.getType(), Rules.CONDITION_TYPE, "condition-type", "an upper camel case word such as Accepted")
          && !seen.add(c.getType())) {
        cv.add("type", "unique", "condition " + c.getType() + " appears more than once");
      }
      if (c.getState() == Condition.State.UNRECOGNIZED) {
        cv.add("state", "enum", "must be STATE_UNKNOWN, STATE_TRUE or STATE_FALSE");
      }
      if (!c.getReason().isEmpty()) {
        matches(cv, "reason", c.getReason(), Rules.CONDITION_REASON, "condition-reason", "a machine-readable word such as OK or MissingAlbum");
      }
      if (c.getMessage().length() > Rules.MAX_CONDITION_MESSAGE) {
        cv.add("message", "max-length", "must be at most " + Rules.MAX_CONDITION_MESSAGE + " characters");
      }
      if (c.hasResource()) {
        reference(cv.field("resource"), c.getResource());
      }
    }
  }

  private static void reference(Violations v, Reference ref) {
    String problem = Types.problem(ref.getType());
    if (problem != null) {
      v.add("type", "format", problem);
    }
    name(v, "name", ref.getName());
  }

  private static boolean matches(Violations v, String field, String value, Pattern rule, String ruleName, String what) {
    if (rule.matcher(value).matches()) {
      return true;
    }
    v.add(field, ruleName, Echo.quote(value) + " must be " + what);
    return false;
  }
}
