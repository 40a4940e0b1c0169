package io.setpoint.api;

import com.google.protobuf.Any;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;

/** Copies of {@link Resource}s for the hot paths of the store and the caches. */
public final class Resources {
  private Resources() {}

  /**
   * {@code resource} with its id, version and data replaced ({@code data} null: none). Built field
   * by field, because {@code toBuilder()} allocates every map field, empty or not, which doubles
   * the weight of a resource without metadata or statuses.
   */
  public static Resource with(Resource resource, ID id, String version, Any data) {
    Resource.Builder out = Resource.newBuilder()
        .setId(id)
        .setVersion(version)
        .setGeneration(resource.getGeneration());
    if (resource.hasOwner()) {
      out.setOwner(resource.getOwner());
    }
    if (resource.getMetadataCount() > 0) {
      out.putAllMetadata(resource.getMetadataMap());
    }
    if (resource.getStatusCount() > 0) {
      out.putAllStatus(resource.getStatusMap());
    }
    if (data != null) {
      out.setData(data);
    }
    return out.build();
  }
}
