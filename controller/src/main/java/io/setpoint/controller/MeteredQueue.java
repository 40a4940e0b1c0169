package io.setpoint.controller;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Timer;
import io.setpoint.controller.queue.Priority;
import io.setpoint.controller.queue.Trigger;
import io.setpoint.controller.queue.WorkQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** Feeds a work queue's callbacks into the {@code workqueue_*} meters. */
record MeteredQueue(Counter adds, Counter retries, Timer queueDuration, Timer workDuration, AtomicInteger depth)
    implements WorkQueue.Listener {
  @Override
  public void added(Trigger cause, Priority priority, boolean coalesced) {
    adds.increment();
  }

  @Override
  public void depthChanged(int newDepth) {
    depth.set(newDepth);
  }

  @Override
  public void taken(WorkQueue.Item<?> item) {
    queueDuration.record(item.queueWait().toNanos(), TimeUnit.NANOSECONDS);
  }

  @Override
  public void done(long workNanos) {
    workDuration.record(workNanos, TimeUnit.NANOSECONDS);
  }

  @Override
  public void retried(Trigger cause, long delayNanos) {
    retries.increment();
  }
}
