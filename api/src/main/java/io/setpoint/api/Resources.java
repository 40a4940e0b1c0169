package io.setpoint.api;

import com.google.protobuf.Any;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Status;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * Builds and edits {@link Resource}s: copies with parts replaced, built field by field for the hot
 * paths of the store and the caches, and the {@link Finalizers} in their metadata.
 */
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

  /**
   * Finalizers: names in the {@code finalizers} metadata entry (separated by spaces) of controllers
   * that must clean up before a resource goes. Delete only marks such a resource ({@code
   * deletionTimestamp}); removing the last finalizer deletes it.
   */
  public static final class Finalizers {
    /** The metadata key holding the finalizers. */
    public static final String KEY = "finalizers";
    /** The metadata key Delete sets (RFC 3339) on a resource that still has finalizers. */
    public static final String DELETION_TIMESTAMP = "deletionTimestamp";

    private Finalizers() {}

    /** The finalizers of {@code resource}, in order. */
    public static Set<String> of(Resource resource) {
      String value = resource.getMetadataMap().getOrDefault(KEY, "").trim();
      Set<String> out = new LinkedHashSet<>();
      if (!value.isEmpty()) {
        out.addAll(Arrays.asList(value.split("\\s+")));
      }
      return out;
    }

    /** True when {@code resource} lists {@code finalizer}. */
    public static boolean has(Resource resource, String finalizer) {
      return of(resource).contains(finalizer);
    }

    /** True when a Delete marked {@code resource} and it waits for its finalizers. */
    public static boolean isMarkedForDeletion(Resource resource) {
      return resource.getMetadataMap().containsKey(DELETION_TIMESTAMP);
    }

    /** {@code resource} with {@code finalizer} added (unchanged if present). */
    public static Resource add(Resource resource, String finalizer) {
      Set<String> names = of(resource);
      return names.add(finalizer) ? with(resource, names) : resource;
    }

    /** {@code resource} with {@code finalizer} removed (unchanged if absent). */
    public static Resource remove(Resource resource, String finalizer) {
      Set<String> names = of(resource);
      return names.remove(finalizer) ? with(resource, names) : resource;
    }

    private static Resource with(Resource resource, Set<String> names) {
      Resource.Builder out = resource.toBuilder();
      if (names.isEmpty()) {
        out.removeMetadata(KEY);
      } else {
        out.putMetadata(KEY, String.join(" ", names));
      }
      return out.build();
    }
  }
}
