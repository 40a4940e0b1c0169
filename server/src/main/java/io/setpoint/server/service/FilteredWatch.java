package io.setpoint.server.service;

import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.WatchEvent;
import io.setpoint.storage.Watch;
import java.time.Duration;
import java.util.function.Predicate;

/** A backend watch that skips the upserts and deletes of resources the caller may not read. */
public final class FilteredWatch implements AutoCloseable {
  private final Watch watch;
  private final Predicate<Resource> visible;

  FilteredWatch(Watch watch, Predicate<Resource> visible) {
    this.watch = watch;
    this.visible = visible;
  }

  /** The next visible event, or null if none arrives within {@code timeout}. */
  public WatchEvent poll(Duration timeout) throws InterruptedException {
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

  @Override
  public void close() {
    watch.close();
  }
}
