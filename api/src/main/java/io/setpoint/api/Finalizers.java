package io.setpoint.api;

import io.setpoint.api.v1.Resource;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * Finalizers: names in the {@code finalizers} metadata entry (separated by spaces) of controllers
 * that must clean up before a resource goes. Delete only marks such a resource ({@code
 * deletionTimestamp}); removing the last finalizer deletes it.
 */
public final class Finalizers {
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
