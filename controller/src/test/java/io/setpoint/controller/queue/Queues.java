package io.setpoint.controller.queue;

import io.setpoint.controller.time.ManualTicker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Helpers for single-threaded queue tests: never block, time moves only by hand. */
final class Queues {
  static final Trigger EVENT = Trigger.event("test");

  private Queues() {}

  /** A builder whose queue reads time from {@code ticker}. */
  static <K> WorkQueue.Builder<K> on(ManualTicker ticker) {
    return WorkQueue.<K>builder().name("test").ticker(ticker);
  }

  /** The next ready item, or null; never blocks. */
  static <K> WorkQueue.Item<K> next(WorkQueue<K> queue) {
    try {
      return queue.poll(Duration.ZERO);
    } catch (InterruptedException e) {
      throw new AssertionError(e);
    }
  }

  /** The key of the next ready item (marking it done at once), or null. */
  static <K> K nextKeyDone(WorkQueue<K> queue) {
    WorkQueue.Item<K> item = next(queue);
    if (item == null) {
      return null;
    }
    queue.done(item.key());
    return item.key();
  }

  /** Takes (and marks done) every ready key, in the order served. */
  static <K> List<K> drain(WorkQueue<K> queue) {
    List<K> out = new ArrayList<>();
    K key;
    while ((key = nextKeyDone(queue)) != null) {
      out.add(key);
    }
    queue.checkInvariants();
    return out;
  }
}
