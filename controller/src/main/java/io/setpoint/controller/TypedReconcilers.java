package io.setpoint.controller;

import com.google.protobuf.Message;
import io.setpoint.api.Resources.Finalizers;
import io.setpoint.api.v1.Resource;
import io.setpoint.client.SetpointException;
import io.setpoint.controller.TypedReconciler.Cleaner;
import io.setpoint.resource.Decoded;
import io.setpoint.resource.Hooks;
import java.util.Optional;

/**
 * Runs a {@link TypedReconciler}, and its {@link Cleaner} if it has one, as a plain {@link
 * Reconciler}: reads and decodes the resource, and keeps the cleaner's finalizer on it.
 */
final class TypedReconcilers {
  private TypedReconcilers() {}

  static <T extends Message> Reconciler of(Class<T> data, TypedReconciler<T> reconciler, Cleaner<T> cleaner,
      String finalizer) {
    return (ctx, tools, request) -> {
      Optional<Decoded<T>> found = tools.cache().getDecoded(request.id(), data);
      if (found.isEmpty()) {
        return reconciler.deleted(request, ctx, tools);
      }
      Decoded<T> resource = found.get();
      if (cleaner == null) {
        return reconciler.reconcile(resource, ctx, tools);
      }
      Resource stored = resource.resource();
      if (Finalizers.isMarkedForDeletion(stored)) {
        if (!Finalizers.has(stored, finalizer)) {
          return Result.done(); // cleaned up already; other finalizers hold it
        }
        Result result = cleaner.cleanup(resource, ctx, tools);
        if (result instanceof Result.Done) {
          release(tools, stored, finalizer);
        }
        return result;
      }
      if (!Finalizers.has(stored, finalizer)) {
        // A compare-and-swap: a resource changed meanwhile fails it, and the retry reads it again.
        Resource guarded = tools.client().write(Finalizers.add(stored, finalizer));
        resource = Hooks.decode(guarded, data);
      }
      return reconciler.reconcile(resource, ctx, tools);
    };
  }

  private static void release(Tools tools, Resource stored, String finalizer) {
    try {
      tools.client().write(Finalizers.remove(stored, finalizer));
    } catch (SetpointException e) {
      if (!e.isNotFound()) {
        throw e; // a conflict: retried, and the next attempt sees whether it is still there
      }
    }
  }
}
