package io.setpoint.bench.jmh;

import com.google.protobuf.Any;
import com.google.protobuf.Message;
import com.google.protobuf.StringValue;
import io.setpoint.api.Tenancies;
import io.setpoint.api.Types;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Tenancy;
import io.setpoint.api.v1.Type;
import io.setpoint.storage.Backend;
import java.util.ArrayList;
import java.util.List;

/**
 * What every benchmark shares: the resources it stores and how they get into a backend.
 *
 * <p>Resources are typed demo.v2.Artist (the type of the demo, without its hooks, which the
 * storage layer never runs) and all carry the same {@link #DATA}: the backend treats data as
 * opaque bytes, so only its size matters. Names are {@code prefix + six digits}; each name gets
 * its own fixed ULID-shaped uid (the backend stores uids as given).
 */
final class Fixture {
  /** The type every benchmark reads, writes and watches. */
  static final Type ARTIST = Types.of("demo", "v2", "Artist");
  /** Another type, for noise that shares names and tenancy with the measured resources. */
  static final Type ALBUM = Types.of("demo", "v2", "Album");
  /** The tenancy every benchmark reads, writes and watches. */
  static final Tenancy HOME = Tenancies.of("default", "default");
  /** Another namespace, for noise that shares type and names with the measured resources. */
  static final Tenancy ELSEWHERE = Tenancies.of("default", "elsewhere");

  /** The payload of every resource: a packed StringValue of 256 serialized bytes. */
  static final Any DATA = dataOfSize(256);

  private static final String GENERATION = "01J9ZB0000GENERAT10N00000Q";

  private Fixture() {}

  /** A new resource (empty version, so writing it is a create) named {@code prefix} + {@code n}. */
  static Resource resource(Type type, Tenancy tenancy, String prefix, int n) {
    String name = prefix + String.format("%06d", n);
    ID id = ID.newBuilder()
        .setUid(uid(type, tenancy, n))
        .setName(name)
        .setType(type)
        .setTenancy(tenancy)
        .build();
    return Resource.newBuilder().setId(id).setGeneration(GENERATION).setData(DATA).build();
  }

  /**
   * Creates {@code count} resources named {@code prefix000000}, {@code prefix000001}, ... and
   * returns them as stored, in that order: each carries its version, ready for a CAS update.
   */
  static List<Resource> create(Backend backend, Type type, Tenancy tenancy, String prefix, int count) {
    List<Resource> stored = new ArrayList<>(count);
    for (int n = 0; n < count; n++) {
      stored.add(backend.writeCas(resource(type, tenancy, prefix, n)));
    }
    return stored;
  }

  /**
   * A fresh but equal copy of {@code message}, as a server would decode it from a request: it
   * keeps equality checks in the engine from short-cutting on identity.
   */
  @SuppressWarnings("unchecked")
  static <T extends Message> T copyOf(T message) {
    return (T) message.toBuilder().build();
  }

  /** A 26-character Crockford base32 string (ULID-shaped), fixed per type, tenancy and number. */
  private static String uid(Type type, Tenancy tenancy, int n) {
    int salt = Math.floorMod((type.getKind() + tenancy.getNamespace()).hashCode(), 100_000);
    return String.format("01J9ZB%05d%015d", salt, n);
  }

  /** A packed StringValue whose Any is exactly {@code bytes} long when serialized. */
  private static Any dataOfSize(int bytes) {
    StringBuilder text = new StringBuilder();
    while (Any.pack(StringValue.of(text.toString())).getSerializedSize() < bytes) {
      text.append((char) ('a' + text.length() % 26));
    }
    return Any.pack(StringValue.of(text.toString()));
  }
}
