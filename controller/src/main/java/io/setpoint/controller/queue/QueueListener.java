package io.setpoint.controller.queue;

/**
 * Callbacks for metrics and tracing of a {@link WorkQueue}; every method has a no-op default.
 *
 * <p>The queue calls these <em>while holding its lock</em>, so that values such as the depth are
 * reported in order. Implementations must therefore be quick (update a counter, record a timer),
 * must not throw, and must not call back into the queue. Durations are ticker nanoseconds, passed as
 * {@code long} so the hot path allocates nothing.
 */
public interface QueueListener {

  /** A listener that ignores everything. */
  QueueListener NONE = new QueueListener() {};

  /**
   * An add was accepted ({@code workqueue_adds_total}). {@code coalesced} is true when the key was
   * already pending and the add merged into it.
   */
  default void added(Trigger cause, Priority priority, boolean coalesced) {}

  /** The number of ready keys changed ({@code workqueue_depth}). */
  default void depthChanged(int depth) {}

  /** An item was handed out after waiting {@code item.queueWait()} ({@code workqueue_queue_duration_seconds}). */
  default void taken(WorkItem<?> item) {}

  /** A taker finished an item after {@code workNanos} ({@code workqueue_work_duration_seconds}). */
  default void done(long workNanos) {}

  /**
   * A rate-limited add was accepted and will come due after {@code delayNanos} ({@code
   * workqueue_retries_total}).
   */
  default void retried(Trigger cause, long delayNanos) {}
}
