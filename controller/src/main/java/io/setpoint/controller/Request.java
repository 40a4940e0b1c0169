package io.setpoint.controller;

import io.setpoint.api.Ids;
import io.setpoint.api.v1.ID;

/**
 * What to reconcile: one resource of the controller's managed type, by name. The id carries no
 * uid, so every event about a name (whatever incarnation) coalesces into one request, and the
 * reconciler reads what is current.
 */
public record Request(ID id) {
  public Request {
    id = Ids.withoutUid(id);
  }

  /** A request for the resource {@code id} names. */
  public static Request of(ID id) {
    return new Request(id);
  }

  @Override
  public String toString() {
    return Ids.format(id);
  }
}
