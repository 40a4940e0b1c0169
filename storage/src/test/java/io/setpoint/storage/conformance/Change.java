package io.setpoint.storage.conformance;

import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Tenancy;
import io.setpoint.api.v1.Type;
import io.setpoint.api.v1.WatchEvent;
import java.util.List;
import java.util.Objects;

/**
 * A committed change as a watcher should see it, without its revision (a delete's revision is not
 * returned to the writer). Comparing lists of changes compares both content and order.
 *
 * @param kind what happened
 * @param resource the stored resource (upsert) or the deleted one (delete); null for the end of a
 *     snapshot
 */
public record Change(Kind kind, Resource resource) {
  /** The three kinds of watch event. */
  public enum Kind {
    UPSERT,
    DELETE,
    END_OF_SNAPSHOT
  }

  public static final Change END_OF_SNAPSHOT = new Change(Kind.END_OF_SNAPSHOT, null);

  public static Change upsert(Resource resource) {
    return new Change(Kind.UPSERT, Objects.requireNonNull(resource));
  }

  public static Change delete(Resource resource) {
    return new Change(Kind.DELETE, Objects.requireNonNull(resource));
  }

  /** The change a watch event reports. */
  public static Change of(WatchEvent event) {
    return switch (event.getEventCase()) {
      case UPSERT -> upsert(event.getUpsert().getResource());
      case DELETE -> delete(event.getDelete().getResource());
      case END_OF_SNAPSHOT -> END_OF_SNAPSHOT;
      case EVENT_NOT_SET -> throw new AssertionError("watch event without a kind: " + event);
    };
  }

  /** True when a watch of {@code type}, {@code tenancy} and {@code namePrefix} reports it. */
  public boolean selectedBy(Type type, Tenancy tenancy, String namePrefix) {
    return resource != null && Fixtures.selects(type, tenancy, namePrefix, resource);
  }

  /** The changes of {@code changes} up to and including {@code last}. */
  public static List<Change> upTo(List<Change> changes, Change last) {
    int at = changes.indexOf(last);
    if (at < 0) {
      throw new AssertionError(last + " is not among " + changes);
    }
    return List.copyOf(changes.subList(0, at + 1));
  }

  @Override
  public String toString() {
    return resource == null
        ? kind.toString()
        : kind
            + " "
            + resource.getId().getName()
            + "@"
            + resource.getVersion()
            + " ("
            + resource.getId().getType().getGroup()
            + "."
            + resource.getId().getType().getGroupVersion()
            + "."
            + resource.getId().getType().getKind()
            + " "
            + resource.getId().getTenancy().getPartition()
            + "/"
            + resource.getId().getTenancy().getNamespace()
            + ")";
  }
}
