package io.setpoint.controller;

/**
 * Runs once when a controller starts, after its cache is primed and before its first reconcile.
 * If it throws, the controller does not start and is restarted (with backoff) later.
 */
@FunctionalInterface
public interface Initializer {
  void initialize(Tools tools) throws Exception;
}
