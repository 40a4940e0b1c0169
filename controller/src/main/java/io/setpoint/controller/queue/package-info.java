/**
 * The controller work queue: {@link io.setpoint.controller.queue.WorkQueue} de-duplicates keys,
 * never loses an update that arrives while a key is processed, delays and rate-limits keys,
 * serves {@linkplain io.setpoint.controller.queue.Priority priorities} with aging and shares
 * fairly between tenants. Each handed-out {@link io.setpoint.controller.queue.WorkQueue.Item}
 * records the {@link io.setpoint.controller.queue.Trigger}s that caused it; a {@link
 * io.setpoint.controller.queue.WorkQueue.Listener} feeds metrics.
 */
package io.setpoint.controller.queue;
