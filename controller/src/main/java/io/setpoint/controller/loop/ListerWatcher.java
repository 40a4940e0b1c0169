package io.setpoint.controller.loop;

import io.setpoint.controller.source.Source;
import java.util.Collection;
import java.util.Objects;
import java.util.Optional;

/**
 * Says which keys a {@link Loop} handles: a full {@link #list()} every resync interval, plus an
 * optional real-time {@link #watch()} so changes need not wait for the next list.
 *
 * <p>Lists are the safety net: a key in a list is handled (at low priority) even if no watch event
 * mentioned it, and a key that was in the previous list but is missing from this one is handled too
 * (the {@link Store} then finds it absent and the {@link Handler} cleans up). A watch may drop
 * events or fail; the next list repairs whatever it missed.
 *
 * <pre>{@code
 * ListerWatcher<String> lists = () -> inventory.keySet();            // lists only
 * ListerWatcher<String> both = ListerWatcher.of(() -> inventory.keySet(), inventory::subscribe);
 * }</pre>
 *
 * @param <K> the key type; keys must have consistent {@code equals}/{@code hashCode} and should be
 *     immutable
 */
@FunctionalInterface
public interface ListerWatcher<K> {

  /**
   * Every key that exists now. Called from one thread at a time; throwing skips this list (the
   * next one comes one resync interval later) and forgets nothing.
   */
  Collection<? extends K> list() throws Exception;

  /** The real-time changes between lists; none by default (lists only). */
  default Optional<Source<Change<K>>> watch() {
    return Optional.empty();
  }

  /** Lists with {@code lister} and watches with {@code watch}. */
  static <K> ListerWatcher<K> of(ListerWatcher<K> lister, Source<Change<K>> watch) {
    Objects.requireNonNull(lister, "lister");
    Objects.requireNonNull(watch, "watch");
    return new ListerWatcher<>() {
      @Override
      public Collection<? extends K> list() throws Exception {
        return lister.list();
      }

      @Override
      public Optional<Source<Change<K>>> watch() {
        return Optional.of(watch);
      }
    };
  }
}
