package io.setpoint.server;

import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.StringValue;
import io.setpoint.api.Ids;
import io.setpoint.api.Types;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Type;
import io.setpoint.resource.Registration;
import io.setpoint.resource.Registry;
import io.setpoint.storage.Backend;
import io.setpoint.storage.Consistency;
import io.setpoint.storage.StorageException;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The types compiled into the members of a cluster (their own and their plugins'), recorded in
 * the store by the first member to start and compared by every member that starts after it. A
 * member that lacks a recorded type, or serves one with another message or scope, refuses to
 * start, naming the difference, instead of answering "unknown type" for data the cluster stores.
 * A member with more types (the first one upgraded, in a rolling upgrade) extends the record.
 */
final class TypeSetCheck {
  private static final Logger log = LoggerFactory.getLogger(TypeSetCheck.class);
  /** Not a registered type: only members read and write it, through the store directly. */
  static final Type RECORD_TYPE = Types.of("core", "v1", "TypeSet");
  static final ID RECORD = Ids.of(RECORD_TYPE, "compiled");
  private static final Duration RETRY = Duration.ofMillis(200);
  private static final SecureRandom RANDOM = new SecureRandom();

  private TypeSetCheck() {}

  /**
   * Compares the types in {@code registry} with those the cluster recorded, recording them when
   * none are, or when this member has more.
   *
   * @param replace record this member's types even when it lacks some the cluster recorded (an
   *     operator removed them on purpose)
   * @param timeout how long to wait for a leader to read the record through; after it, the
   *     member's own copy of the store is checked
   * @throws IllegalStateException naming every difference, when this member must not serve
   */
  public static void check(Registry registry, Backend backend, boolean replace, Duration timeout) {
    Map<String, String> ours = of(registry);
    // Members starting together race to record; the loser compares with what the winner recorded.
    for (int attempt = 0; attempt < 3; attempt++) {
      Resource stored = read(backend, timeout);
      if (stored == null ? record(backend, ours, null) : compare(backend, ours, stored, replace)) {
        return;
      }
    }
    log.warn("the cluster's type set kept changing while this member checked it; starting without a final check");
  }

  /** Whether the check is over: the sets agree, or the record was extended (or could not be). */
  private static boolean compare(Backend backend, Map<String, String> ours, Resource stored, boolean replace) {
    Map<String, String> recorded = parse(stored);
    List<String> differences = new ArrayList<>();
    recorded.forEach((type, shape) -> {
      String mine = ours.get(type);
      if (mine == null) {
        differences.add("lacks " + type + " (" + shape + ")");
      } else if (!mine.equals(shape)) {
        differences.add("serves " + type + " as " + mine + " where the cluster has " + shape);
      }
    });
    List<String> added = ours.keySet().stream().filter(type -> !recorded.containsKey(type)).toList();
    if (!differences.isEmpty() && !replace) {
      throw new IllegalStateException("this member's types differ from those the cluster recorded: "
          + String.join("; ", differences) + ". Start it with the same version and plugins as the other members,"
          + " or with -replace-type-set if the change is deliberate (docs/plugins.md)");
    }
    if (differences.isEmpty() && added.isEmpty()) {
      return true;
    }
    log.info("recording this member's types for the cluster{}{}",
        added.isEmpty() ? "" : ", adding " + String.join(", ", added),
        differences.isEmpty() ? "" : ", replacing: " + String.join("; ", differences));
    return record(backend, ours, stored);
  }

  /** {@code group.version.Kind} to {@code message scope}, for every registered type. */
  static Map<String, String> of(Registry registry) {
    Map<String, String> types = new TreeMap<>();
    for (Registration<?> reg : registry.types()) {
      types.put(Types.format(reg.type()), reg.dataMessageName() + " " + reg.scope().name());
    }
    return types;
  }

  private static Map<String, String> parse(Resource stored) {
    Map<String, String> types = new TreeMap<>();
    try {
      for (String line : stored.getData().unpack(StringValue.class).getValue().split("\n")) {
        int space = line.indexOf(' ');
        if (space > 0) {
          types.put(line.substring(0, space), line.substring(space + 1));
        }
      }
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException(Ids.format(RECORD) + " in the store does not hold a type set", e);
    }
    return types;
  }

  private static Resource read(Backend backend, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    boolean told = false;
    while (true) {
      try {
        return backend.read(Consistency.STRONG, RECORD);
      } catch (StorageException e) {
        if (e.reason() == StorageException.Reason.NOT_FOUND) {
          return null;
        }
        if (e.reason() != StorageException.Reason.UNAVAILABLE || System.nanoTime() > deadline) {
          log.warn("cannot read the cluster's type set through the leader ({}); checking this member's copy", e.getMessage());
          return local(backend);
        }
        if (!told) {
          log.info("waiting up to {} s for a Raft leader, to compare this member's types with the cluster's",
              timeout.toSeconds());
          told = true;
        }
        LockSupport.parkNanos(RETRY.toNanos());
      }
    }
  }

  private static Resource local(Backend backend) {
    try {
      return backend.read(Consistency.EVENTUAL, RECORD);
    } catch (StorageException e) {
      return null;
    }
  }

  /** Whether the record is settled: written, or not writable now; false when another member wrote first. */
  private static boolean record(Backend backend, Map<String, String> types, Resource previous) {
    StringBuilder lines = new StringBuilder();
    types.forEach((type, shape) -> lines.append(type).append(' ').append(shape).append('\n'));
    Resource.Builder next = Resource.newBuilder()
        .setData(Any.pack(StringValue.of(lines.toString())))
        .setGeneration("1");
    if (previous == null) {
      next.setId(RECORD.toBuilder().setUid(Long.toHexString(RANDOM.nextLong())));
    } else {
      next.setId(previous.getId()).setVersion(previous.getVersion());
    }
    try {
      backend.writeCas(next.build());
      return true;
    } catch (StorageException e) {
      if (e.reason() == StorageException.Reason.CAS_FAILURE || e.reason() == StorageException.Reason.WRONG_UID) {
        return false;
      }
      // No leader to take the write: this member's next start checks again.
      log.warn("could not record this member's types for the cluster: {}", e.getMessage());
      return true;
    }
  }
}
