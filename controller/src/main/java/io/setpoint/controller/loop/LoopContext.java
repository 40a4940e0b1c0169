package io.setpoint.controller.loop;

import io.setpoint.controller.ReconcileContext;

/**
 * One handling's circumstances: the key, why it runs ({@link #triggers()}: a list, a watch event,
 * a retry...), how long it waited, and its cancellation. When the loop's handle timeout passes or
 * the loop stops, the handling thread is interrupted and {@link #isCancelled()} turns true;
 * long-running handlers should check it (or let blocking calls throw {@link InterruptedException}).
 *
 * @param <K> the key type
 */
public interface LoopContext<K> extends ReconcileContext {

  /** The key being handled. */
  K key();
}
