package io.setpoint.controller;

import io.setpoint.controller.loop.Loop;
import io.setpoint.controller.queue.Trigger;
import java.time.Duration;
import java.util.List;

/**
 * The context of one reconcile or handling, shared by controllers (as a {@link
 * io.setpoint.controller.ReconcileContext}) and loops (as a {@link Loop.Context}).
 */
final class WorkContext<K> implements Loop.Context<K> {
  private final String name;
  private final K key;
  private final List<Trigger> triggers;
  private final int retries;
  private final Duration queueWait;
  private volatile boolean cancelled;
  /** Set by a body that asks to run again for a reason worth tracing (a refused lock). */
  private String requeueReason;

  WorkContext(String name, K key, List<Trigger> triggers, int retries, Duration queueWait) {
    this.name = name;
    this.key = key;
    this.triggers = triggers;
    this.retries = retries;
    this.queueWait = queueWait;
  }

  @Override public String controller() { return name; }
  @Override public K key() { return key; }
  @Override public List<Trigger> triggers() { return triggers; }
  @Override public int retries() { return retries; }
  @Override public Duration queueWait() { return queueWait; }
  @Override public boolean isCancelled() { return cancelled; }

  void cancel() {
    cancelled = true;
  }

  String requeueReason() {
    return requeueReason;
  }

  void requeueReason(String reason) {
    this.requeueReason = reason;
  }
}
