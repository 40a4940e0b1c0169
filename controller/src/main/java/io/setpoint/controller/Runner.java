package io.setpoint.controller;

import java.time.Duration;
import java.util.function.Consumer;

/** Something a {@link Supervisor} keeps running: a controller or a generic loop. */
interface Runner {
  /** Starts it; throwing makes the supervisor retry with backoff. */
  void start() throws Exception;

  /** Stops taking work and lets in-flight work finish within {@code deadline}. Idempotent. */
  void stop(Duration deadline);

  /**
   * Calls {@code listener} when it fails while running (not when stopped), so the supervisor can
   * restart it. Set before {@link #start}.
   */
  void onFailure(Consumer<Throwable> listener);

  /** Keys ready to process now. */
  int queueDepth();
}
