package io.setpoint.controller.loop;

import java.util.Objects;

/**
 * A real-time change a {@link ListerWatcher} watch reports: which key, and what happened to it. It
 * only says "look at this key": the loop fetches the key's current state from the {@link Store}
 * right before handling it, so the kind serves tracing, not the decision between present and absent.
 *
 * @param kind what happened
 * @param key the key it happened to
 * @param <K> the key type
 */
public record Change<K>(Kind kind, K key) {

  /** What happened to a key. */
  public enum Kind {
    /** The object appeared. */
    ADDED,
    /** The object changed. */
    MODIFIED,
    /** The object went away. */
    DELETED
  }

  /** Checks that neither component is null. */
  public Change {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(key, "key");
  }

  /** {@code key} appeared. */
  public static <K> Change<K> added(K key) {
    return new Change<>(Kind.ADDED, key);
  }

  /** {@code key} changed. */
  public static <K> Change<K> modified(K key) {
    return new Change<>(Kind.MODIFIED, key);
  }

  /** {@code key} went away. */
  public static <K> Change<K> deleted(K key) {
    return new Change<>(Kind.DELETED, key);
  }
}
