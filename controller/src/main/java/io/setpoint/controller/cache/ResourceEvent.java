package io.setpoint.controller.cache;

import io.setpoint.api.v1.Resource;

/**
 * A change the cache applied: an upsert (with the resource it replaced, if any) or a delete.
 *
 * @param previous what the cache held before, or null for a new resource
 * @param resource the new state, or for a delete the last state
 * @param revision the store revision of the change
 * @param traceparent the W3C trace context of the write that made it, when the server traces; empty
 *     otherwise
 */
public record ResourceEvent(Kind kind, Resource previous, Resource resource, long revision, String traceparent) {
  /** An event with no trace context. */
  public ResourceEvent(Kind kind, Resource previous, Resource resource, long revision) {
    this(kind, previous, resource, revision, "");
  }

  /** Which kind of change. */
  public enum Kind {
    UPSERT,
    DELETE
  }

  /** True for a delete. */
  public boolean isDelete() {
    return kind == Kind.DELETE;
  }
}
