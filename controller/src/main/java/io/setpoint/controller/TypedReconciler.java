package io.setpoint.controller;

import com.google.protobuf.Message;
import io.setpoint.resource.Decoded;

/**
 * A reconciler that works on its resource decoded: the runtime reads the request's resource from
 * the cache, decodes its data as {@code T} and calls {@link #reconcile}; when the resource is gone
 * it calls {@link #deleted} instead. Give the controller a {@link Cleaner} too, and the runtime
 * keeps a finalizer on each resource and calls the cleaner, not this, once one is marked for
 * deletion. Set it with {@link Controller.Builder#reconciler(Class, TypedReconciler)}.
 *
 * <pre>{@code
 * Controller.forType(ARTIST).reconciler(Artist.class, (artist, ctx, tools) -> {
 *   tools.logger().info("{} has {} albums", artist.id().getName(), artist.data().getDiscographyCount());
 *   return Result.done();
 * });
 * }</pre>
 *
 * <p>As with {@link Reconciler}: at most one reconcile per resource at a time, idempotent, and
 * throwing retries with backoff, except for {@link TerminalException}.
 *
 * @param <T> the managed type's data message
 */
@FunctionalInterface
public interface TypedReconciler<T extends Message> {
  /** Drives {@code resource}, as the cache shows it now, toward its desired state. */
  Result reconcile(Decoded<T> resource, ReconcileContext ctx, Tools tools) throws Exception;

  /**
   * The resource {@code request} names is gone (deleted, or never was): whatever it owned the
   * server deletes with it. By default nothing is left to do.
   */
  default Result deleted(Request request, ReconcileContext ctx, Tools tools) throws Exception {
    return Result.done();
  }

  /**
   * Cleans up what a resource stands for outside the store (a bucket, a DNS record) before the
   * resource goes. With a cleaner, the runtime adds the controller's finalizer to every resource it
   * reconciles, so a Delete only marks the resource; it then calls {@link #cleanup} instead of the
   * reconciler, and removes the finalizer when the clean-up returns {@link Result#done()}, which
   * lets the store delete the resource. Set it with {@link Controller.Builder#reconciler(Class,
   * TypedReconciler, Cleaner)}.
   *
   * @param <T> the managed type's data message
   */
  @FunctionalInterface
  interface Cleaner<T extends Message> {
    /**
     * Cleans up after {@code resource}, which a Delete marked. Return {@link Result#done()} once
     * nothing is left (the finalizer is then removed), {@link Result#requeueAfter} to look again
     * later, or throw to retry with backoff; it must be idempotent, as it may run again.
     */
    Result cleanup(Decoded<T> resource, ReconcileContext ctx, Tools tools) throws Exception;
  }
}
