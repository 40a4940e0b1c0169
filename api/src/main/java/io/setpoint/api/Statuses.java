package io.setpoint.api;

import io.setpoint.api.v1.Condition;
import io.setpoint.api.v1.Reference;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Status;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Statuses and their conditions. {@link Conditions} builds and reads the conditions a controller
 * reports; the methods here compare statuses the way a controller needs for dirty-checking: by what
 * it observed, not by the timestamps the server stamps.
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

  /** Builds and reads the conditions of a status. */
  public static final class Conditions {
    private Conditions() {}

    /** A condition in the good state. */
    public static Condition isTrue(String type, String reason, String message) {
      return of(type, Condition.State.STATE_TRUE, reason, message);
    }

    /** A condition in the bad state. */
    public static Condition isFalse(String type, String reason, String message) {
      return of(type, Condition.State.STATE_FALSE, reason, message);
    }

    /** A condition with any state. */
    public static Condition of(String type, Condition.State state, String reason, String message) {
      return Condition.newBuilder().setType(type).setState(state).setReason(reason).setMessage(message).build();
    }

    /** The same condition, about {@code resource}. */
    public static Condition about(Condition condition, Reference resource) {
      return condition.toBuilder().setResource(resource).build();
    }

    /**
     * Puts {@code condition} into {@code status} in place of any condition of its type. When the
     * state is unchanged, the old {@code last_transition_time} is kept (the server does the same for
     * conditions that arrive without one).
     */
    public static Status.Builder set(Status.Builder status, Condition condition) {
      for (int i = 0; i < status.getConditionsCount(); i++) {
        Condition old = status.getConditions(i);
        if (old.getType().equals(condition.getType())) {
          Condition merged = old.getState() == condition.getState() && old.hasLastTransitionTime()
              ? condition.toBuilder().setLastTransitionTime(old.getLastTransitionTime()).build()
              : condition;
          return status.setConditions(i, merged);
        }
      }
      return status.addConditions(condition);
    }

    /** The condition of {@code type} in {@code status}, if any. */
    public static Optional<Condition> find(Status status, String type) {
      return status.getConditionsList().stream().filter(c -> c.getType().equals(type)).findFirst();
    }

    /** True when {@code status} holds a condition of {@code type} in the TRUE state. */
    public static boolean holds(Status status, String type) {
      return find(status, type).map(c -> c.getState() == Condition.State.STATE_TRUE).orElse(false);
    }
  }
}
