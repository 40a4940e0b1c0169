package io.setpoint.controller;

/**
 * Drives one resource toward its desired state. Called with at most one reconcile per request at
 * a time; must be idempotent (it may run again for the same state). Throwing retries the request
 * with exponential backoff, except for {@link TerminalException}.
 */
@FunctionalInterface
public interface Reconciler {
  Result reconcile(ReconcileContext ctx, Tools tools, Request request) throws Exception;
}
