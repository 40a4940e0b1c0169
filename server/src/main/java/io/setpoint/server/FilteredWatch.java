package io.setpoint.server;

import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.WatchEvent;
import io.setpoint.storage.Backend.WatchCursor;
import java.time.Duration;
import java.util.function.Predicate;

/**
 * A backend watch that skips the upserts and deletes of resources the caller may not read, and
 * ends once the caller may no longer watch at all (its token was deleted, or its policies no
 * longer allow listing the type).
 */
final class FilteredWatch implements AutoCloseable {
  private final WatchCursor watch;
  private final Predicate<Resource> visible;
  private final Runnable stillAllowed;

  /**
   * @param visible whether the caller may read a resource; may throw to end the watch
   * @param stillAllowed throws (PERMISSION_DENIED, UNAUTHENTICATED) once the caller may no
   *     longer watch; asked on every poll, so at least as often as the streamer polls when idle
   */
  FilteredWatch(WatchCursor watch, Predicate<Resource> visible, Runnable stillAllowed) {
    this.watch = watch;
    this.visible = visible;
    this.stillAllowed = stillAllowed;
  }

  /**
   * The next visible event, or null if none arrives within {@code timeout}.
   *
   * @throws RuntimeException the caller's ACL failure once it may no longer watch
   */
  public WatchEvent poll(Duration timeout) throws InterruptedException {
    stillAllowed.run();
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      WatchEvent event = watch.poll(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
      if (event == null || isVisible(event)) {
        return event;
      }
    }
  }

  private boolean isVisible(WatchEvent event) {
    return switch (event.getEventCase()) {
      case UPSERT -> visible.test(event.getUpsert().getResource());
      case DELETE -> visible.test(event.getDelete().getResource());
      default -> true;
    };
  }

  /** See {@link WatchCursor#closedBecause()}. */
  public String closedBecause() {
    return watch.closedBecause();
  }

  @Override
  public void close() {
    watch.close();
  }
}
