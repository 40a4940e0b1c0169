package io.setpoint.storage;

import io.setpoint.api.v1.Resource;
import java.util.List;

/**
 * One page of a listing.
 *
 * @param resources the resources of this page
 * @param nextPageToken empty on the last page
 * @param revision the store revision every page of the listing is read at
 */
public record Page(List<Resource> resources, String nextPageToken, long revision) {
  public Page {
    resources = List.copyOf(resources);
  }
}
