package io.setpoint.controller;

import io.setpoint.api.v1.Resource;

/**
 * Records what a controller did or saw about a resource, as a {@code core.v1.Event} resource owned
 * by the subject (listable with ListByOwner, deleted with it).
 */
public interface EventRecorder {
  /** A normal event, e.g. {@code normal(artist, "AlbumsCreated", "created 3 albums")}. */
  void normal(Resource subject, String reason, String message);

  /** A warning, e.g. {@code warning(artist, "InvalidLabel", "label foo does not exist")}. */
  void warning(Resource subject, String reason, String message);
}
