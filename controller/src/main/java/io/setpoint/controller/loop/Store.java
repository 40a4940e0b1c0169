package io.setpoint.controller.loop;

import java.util.Optional;

/**
 * Fetches the current state of the object behind a key. A {@link Loop} calls it right before each
 * handling, never earlier, so a handler always sees the latest state rather than the state at the
 * time the key was queued, however long it waited.
 *
 * <pre>{@code
 * Store<String, Item> store = sku -> Optional.ofNullable(inventory.get(sku));
 * }</pre>
 *
 * @param <K> the key type
 * @param <T> the object type
 */
@FunctionalInterface
public interface Store<K, T> {

  /**
   * The object behind {@code key} now, or empty if it does not exist (then the handler's {@link
   * Handler#onAbsent onAbsent} runs). Throwing counts as a failed handling and is retried with
   * backoff.
   */
  Optional<T> get(K key) throws Exception;

  /** A store whose object is the key itself, for loops that need nothing but the key. */
  static <K> Store<K, K> identity() {
    return Optional::of;
  }
}
