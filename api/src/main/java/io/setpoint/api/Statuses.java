package io.setpoint.api;

import io.setpoint.api.v1.Condition;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Status;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Compares statuses the way a controller needs for dirty-checking: by what it observed, not by the
 * timestamps the server stamps.
 */
public final class Statuses {
  private Statuses() {}

  /**
   * True when both statuses have the same observed generation and the same conditions (in any
   * order), ignoring {@code updated_at} and each condition's {@code last_transition_time}.
   */
  public static boolean equal(Status a, Status b) {
    if (!a.getObservedGeneration().equals(b.getObservedGeneration())) {
      return false;
    }
    return equalConditions(a.getConditionsList(), b.getConditionsList());
  }

  /** True when {@code resource} already holds a status under {@code key} equal to {@code status}. */
  public static boolean equal(Resource resource, String key, Status status) {
    Status current = resource.getStatusMap().get(key);
    return current != null && equal(current, status);
  }

  /** True when both lists hold equal conditions, in any order, ignoring transition times. */
  public static boolean equalConditions(List<Condition> a, List<Condition> b) {
    if (a.size() != b.size()) {
      return false;
    }
    Map<String, Condition> byType = new HashMap<>();
    for (Condition c : a) {
      byType.put(c.getType(), withoutTime(c));
    }
    for (Condition c : b) {
      if (!withoutTime(c).equals(byType.get(c.getType()))) {
        return false;
      }
    }
    return true;
  }

  private static Condition withoutTime(Condition c) {
    return c.hasLastTransitionTime() ? c.toBuilder().clearLastTransitionTime().build() : c;
  }
}
