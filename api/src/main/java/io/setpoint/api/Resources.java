package io.setpoint.api;

import com.google.protobuf.Any;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Status;
import java.util.Map;

/** Copies of {@link Resource}s for the hot paths of the store and the caches. */
public final class Resources {
  private Resources() {}

  /**
   * {@code resource} with its id, version and data replaced ({@code data} null: none). Built field
   * by field, because {@code toBuilder()} allocates every map field, empty or not, which doubles
   * the weight of a resource without metadata or statuses.
   */
  public static Resource with(Resource resource, ID id, String version, Any data) {
    return of(id, resource.hasOwner() ? resource.getOwner() : null, version, resource.getGeneration(),
        resource.getMetadataMap(), resource.getStatusMap(), data);
  }

  /** {@code resource} with its version replaced. */
  public static Resource withVersion(Resource resource, String version) {
    return with(resource, resource.getId(), version, resource.hasData() ? resource.getData() : null);
  }

  /**
   * The resource of these fields ({@code owner} or {@code data} null: none), built field by field
   * like {@link #with}.
   */
  public static Resource of(
      ID id,
      ID owner,
      String version,
      String generation,
      Map<String, String> metadata,
      Map<String, Status> status,
      Any data) {
    Resource.Builder out = Resource.newBuilder()
        .setId(id)
        .setVersion(version)
        .setGeneration(generation);
    if (owner != null) {
      out.setOwner(owner);
    }
    if (!metadata.isEmpty()) {
      out.putAllMetadata(metadata);
    }
    if (!status.isEmpty()) {
      out.putAllStatus(status);
    }
    if (data != null) {
      out.setData(data);
    }
    return out.build();
  }
}
