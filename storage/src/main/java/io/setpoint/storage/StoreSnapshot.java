package io.setpoint.storage;

import io.setpoint.api.v1.Resource;
import java.util.List;

/**
 * Every live resource of a store as of one revision, in key order: what {@link Backend#snapshot()}
 * copies for a backup.
 *
 * @param revision the store revision the copy is of
 * @param resources the resources live at that revision, as stored (uids, versions, owners, statuses)
 */
public record StoreSnapshot(long revision, List<Resource> resources) {
  public StoreSnapshot {
    resources = List.copyOf(resources);
  }
}
