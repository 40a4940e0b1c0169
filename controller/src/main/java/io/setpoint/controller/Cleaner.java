package io.setpoint.controller;

import com.google.protobuf.Message;
import io.setpoint.resource.Decoded;

/**
 * Cleans up what a resource stands for outside the store (a bucket, a DNS record) before the
 * resource goes. With a cleaner, the runtime adds the controller's finalizer to every resource it
 * reconciles, so a Delete only marks the resource; it then calls {@link #cleanup} instead of the
 * reconciler, and removes the finalizer when the clean-up returns {@link Result#done()}, which lets
 * the store delete the resource. Set it with {@link Controller.Builder#reconciler(Class,
 * TypedReconciler, Cleaner)}.
 *
 * @param <T> the managed type's data message
 */
@FunctionalInterface
public interface Cleaner<T extends Message> {
  /**
   * Cleans up after {@code resource}, which a Delete marked. Return {@link Result#done()} once
   * nothing is left (the finalizer is then removed), {@link Result#requeueAfter} to look again
   * later, or throw to retry with backoff; it must be idempotent, as it may run again.
   */
  Result cleanup(Decoded<T> resource, ReconcileContext ctx, Tools tools) throws Exception;
}
