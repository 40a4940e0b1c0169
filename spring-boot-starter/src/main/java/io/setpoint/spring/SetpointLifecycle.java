package io.setpoint.spring;

import io.setpoint.controller.Controller;
import io.setpoint.controller.Manager;
import io.setpoint.controller.loop.Loop;
import io.setpoint.controller.time.Ticker;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Starts the manager with the context and stops it first when the context closes. Starting
 * registers the context's controllers and loops and then waits, up to the startup timeout, for
 * their caches to be primed: Boot marks the app ready to take traffic only after every lifecycle
 * bean started, so the app turns ready once its controllers can work. Stopping drains the
 * reconciles in flight on a thread of its own, as Spring's graceful shutdown expects.
 */
final class SetpointLifecycle implements SmartLifecycle {
  private static final Logger log = LoggerFactory.getLogger(SetpointLifecycle.class);
  private static final Duration POLL = Duration.ofMillis(20);

  private final Manager manager;
  private final Duration startupTimeout;
  private final Ticker ticker;
  private final Supplier<List<Controller>> controllers;
  private final Supplier<List<Loop<?, ?>>> loops;
  private volatile boolean running;

  SetpointLifecycle(Manager manager, Duration startupTimeout, Ticker ticker, Supplier<List<Controller>> controllers,
      Supplier<List<Loop<?, ?>>> loops) {
    this.manager = manager;
    this.startupTimeout = startupTimeout;
    this.ticker = ticker;
    this.controllers = controllers;
    this.loops = loops;
  }

  @Override
  public void start() {
    controllers.get().forEach(manager::register);
    loops.get().forEach(manager::register);
    manager.start();
    running = true;
    awaitPrimed();
  }

  private void awaitPrimed() {
    long deadline = ticker.read() + startupTimeout.toNanos();
    List<String> unprimed = manager.unprimed();
    try {
      while (!unprimed.isEmpty() && deadline - ticker.read() > 0) {
        ticker.sleep(POLL);
        unprimed = manager.unprimed();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    }
    if (!unprimed.isEmpty()) {
      log.warn("Setpoint controllers {} have not primed their caches within setpoint.manager.startup-timeout ({});"
          + " the app starts anyway and the setpoint health indicator reports them", unprimed, startupTimeout);
    }
  }

  @Override
  public void stop() {
    running = false;
    manager.close();
  }

  @Override
  public void stop(Runnable callback) {
    running = false;
    Thread.ofPlatform().name("setpoint-manager-stop").start(() -> {
      try {
        manager.close();
      } finally {
        callback.run();
      }
    });
  }

  @Override
  public boolean isRunning() {
    return running;
  }
}
