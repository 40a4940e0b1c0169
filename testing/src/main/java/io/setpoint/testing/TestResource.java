package io.setpoint.testing;

import com.google.protobuf.Any;
import com.google.protobuf.Message;
import io.setpoint.api.Ids;
import io.setpoint.api.Resources.Finalizers;
import io.setpoint.api.Tenancies;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Tenancy;
import io.setpoint.api.v1.Type;
import io.setpoint.client.SetpointClient;
import java.util.Objects;

/**
 * A fluent builder of resources for tests. Without a tenancy the id is left for the server to
 * default by the type's scope.
 *
 * <pre>{@code
 * Resource miles = TestResource.of(DemoTypes.ARTIST, "miles")
 *     .namespace("jazz")
 *     .data(Artist.newBuilder().setName("Miles Davis").build())
 *     .metadata("team", "records")
 *     .createIn(setpoint.client());
 * }</pre>
 */
public final class TestResource {
  private final Resource.Builder resource = Resource.newBuilder();
  private final ID.Builder id;

  private TestResource(Type type, String name) {
    this.id = ID.newBuilder().setType(Objects.requireNonNull(type, "type")).setName(Objects.requireNonNull(name, "name"));
  }

  /** A resource of {@code type} named {@code name}, in the default tenancy, with no data. */
  public static TestResource of(Type type, String name) {
    return new TestResource(type, name);
  }

  /** In {@code tenancy}. */
  public TestResource tenancy(Tenancy tenancy) {
    id.setTenancy(tenancy);
    return this;
  }

  /** In namespace {@code namespace} of the {@code default} partition. */
  public TestResource namespace(String namespace) {
    return tenancy(Tenancies.of(Tenancies.DEFAULT, namespace));
  }

  /** With {@code data} (packed into an {@link Any}). */
  public TestResource data(Message data) {
    resource.setData(Any.pack(data));
    return this;
  }

  /** With the metadata entry {@code key}: {@code value}. */
  public TestResource metadata(String key, String value) {
    resource.putMetadata(key, value);
    return this;
  }

  /** With the finalizers {@code finalizers}, as {@link Finalizers} reads them. */
  public TestResource finalizers(String... finalizers) {
    return metadata(Finalizers.KEY, String.join(" ", finalizers));
  }

  /** Owned by the incarnation {@code owner} (which carries its uid). */
  public TestResource owner(ID owner) {
    resource.setOwner(owner);
    return this;
  }

  /** Owned by {@code owner}, a stored resource. */
  public TestResource owner(Resource owner) {
    return owner(owner.getId());
  }

  /** The id, without uid. */
  public ID id() {
    return id.build();
  }

  /** The resource, ready to write or create. */
  public Resource build() {
    return resource.clone().setId(id()).build();
  }

  /** Creates it through {@code client} (create-only) and returns it as stored. */
  public Resource createIn(SetpointClient client) {
    return client.create(build());
  }

  @Override
  public String toString() {
    return "TestResource " + Ids.format(id());
  }
}
