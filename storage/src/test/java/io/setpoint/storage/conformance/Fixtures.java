package io.setpoint.storage.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.StringValue;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Status;
import io.setpoint.api.v1.Tenancy;
import io.setpoint.api.v1.Type;
import io.setpoint.storage.StorageException;
import io.setpoint.storage.StorageException.Reason;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Test resources and small assertions shared by the conformance suite and backend-specific tests.
 * Everything is built from plain protobuf builders, so nothing here depends on a backend.
 */
public final class Fixtures {
  /** The namespace-scoped type most cases use. */
  public static final Type WIDGET = type("test", "v1", "Widget");

  /** {@link #WIDGET} at another group version: same storage key space, another type. */
  public static final Type WIDGET_V2 = type("test", "v2", "Widget");

  /** Another kind of the same group. */
  public static final Type GADGET = type("test", "v1", "Gadget");

  /** The same kind in another group. */
  public static final Type OTHER_GROUP_WIDGET = type("other", "v1", "Widget");

  /** A cluster-scoped type: its resources have an empty tenancy. */
  public static final Type NODE = type("test", "v1", "Node");

  /** A partition-scoped type: its resources have a partition and an empty namespace. */
  public static final Type ZONE = type("test", "v1", "Zone");

  public static final String WILDCARD = "*";
  public static final Tenancy CLUSTER = tenancy("", "");
  public static final Tenancy DEFAULT_TENANCY = tenancy("default", "default");

  /** How long any single wait of the suite may take before it fails. */
  public static final Duration TIMEOUT = Duration.ofSeconds(10);

  private static final AtomicLong UIDS = new AtomicLong();

  private Fixtures() {}

  public static Type type(String group, String groupVersion, String kind) {
    return Type.newBuilder().setGroup(group).setGroupVersion(groupVersion).setKind(kind).build();
  }

  public static Tenancy tenancy(String partition, String namespace) {
    return Tenancy.newBuilder().setPartition(partition).setNamespace(namespace).build();
  }

  /** A fresh ULID-shaped uid, unique within the JVM. */
  public static String newUid() {
    return String.format("01TESTUID%017d", UIDS.incrementAndGet());
  }

  /** An id without a uid. */
  public static ID id(Type type, Tenancy tenancy, String name) {
    return ID.newBuilder().setType(type).setTenancy(tenancy).setName(name).build();
  }

  /** A {@link #WIDGET} id in the default tenancy, without a uid. */
  public static ID id(String name) {
    return id(WIDGET, DEFAULT_TENANCY, name);
  }

  public static ID withUid(ID id, String uid) {
    return id.toBuilder().setUid(uid).build();
  }

  public static ID withoutUid(ID id) {
    return id.toBuilder().clearUid().build();
  }

  public static ID withType(ID id, Type type) {
    return id.toBuilder().setType(type).build();
  }

  /** {@code text} as the data of a resource. */
  public static Any data(String text) {
    return Any.pack(StringValue.of(text));
  }

  /** The text {@link #data} packed. */
  public static String text(Resource resource) {
    try {
      return resource.getData().unpack(StringValue.class).getValue();
    } catch (InvalidProtocolBufferException e) {
      throw new AssertionError("data of " + resource.getId() + " is not a StringValue", e);
    }
  }

  /**
   * A resource ready to be created: a fresh uid (unless {@code id} has one), no version, a
   * generation, metadata, one status entry and data, so a backend that drops or rewrites any field
   * is caught.
   */
  public static Resource resource(ID id) {
    ID withUid = id.getUid().isEmpty() ? withUid(id, newUid()) : id;
    return Resource.newBuilder()
        .setId(withUid)
        .setGeneration(newUid())
        .putMetadata("origin", "conformance")
        .putStatus(
            "test-controller",
            Status.newBuilder().setObservedGeneration("01TESTGENERATION000000000").build())
        .setData(data(id.getName()))
        .build();
  }

  /** {@code resource} owned by {@code owner} (an id with a uid). */
  public static Resource ownedBy(Resource resource, ID owner) {
    return resource.toBuilder().setOwner(owner).build();
  }

  /** The next state of {@code stored}: new data and generation, CAS on its current version. */
  public static Resource changed(Resource stored, String text) {
    return stored.toBuilder().setData(data(text)).setGeneration(newUid()).build();
  }

  /** {@code resource} as a backend must store it: unchanged but for {@code version}. */
  public static Resource stored(Resource resource, String version) {
    return resource.toBuilder().setVersion(version).build();
  }

  /** The store revision a version stands for; fails unless it is a canonical positive decimal. */
  public static long revision(Resource resource) {
    String version = resource.getVersion();
    assertThat(version)
        .as("version of %s is the store revision as a decimal string", resource.getId().getName())
        .matches("[1-9][0-9]*");
    return Long.parseLong(version);
  }

  /** True when a query for {@code type}, {@code pattern} (may hold "*") and prefix selects it. */
  public static boolean selects(Type type, Tenancy pattern, String namePrefix, Resource resource) {
    ID id = resource.getId();
    return id.getType().equals(type)
        && level(pattern.getPartition(), id.getTenancy().getPartition())
        && level(pattern.getNamespace(), id.getTenancy().getNamespace())
        && id.getName().startsWith(namePrefix);
  }

  private static boolean level(String pattern, String value) {
    return pattern.equals(WILDCARD) || pattern.equals(value);
  }

  /**
   * Runs {@code call}, which must fail with a {@link StorageException} of {@code reason}; a normal
   * return fails the test and shows what was returned.
   */
  public static StorageException assertFails(Reason reason, Callable<?> call) {
    Object returned;
    try {
      returned = call.call();
    } catch (StorageException e) {
      assertThat(e.reason()).as("reason of: %s", e.getMessage()).isEqualTo(reason);
      return e;
    } catch (Exception e) {
      throw new AssertionError("expected StorageException " + reason + ", got " + e, e);
    }
    throw new AssertionError(
        "expected StorageException " + reason + ", but it returned " + returned);
  }
}
