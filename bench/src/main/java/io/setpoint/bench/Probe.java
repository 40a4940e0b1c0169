package io.setpoint.bench;

import io.setpoint.api.Ids;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.controller.Controller;
import io.setpoint.controller.Result;
import io.setpoint.demo.DemoTypes;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A controller over Artists whose reconciler does nothing but note when it started and which
 * version of the resource it saw in the cache, so a benchmark can wait for a write to reach it.
 */
final class Probe {
  private final ConcurrentHashMap<String, long[]> started = new ConcurrentHashMap<>();
  private final AtomicInteger reconciles = new AtomicInteger();
  private final Object signal = new Object();

  /** The controller; {@code concurrency} workers, resync every {@code resync} (zero: never). */
  Controller controller(int concurrency, Duration resync) {
    return Controller.forType(DemoTypes.ARTIST)
        .named("bench-probe")
        .concurrency(concurrency)
        .resync(resync)
        .reconciler((ctx, runtime, request) -> {
          long now = System.nanoTime();
          long version = runtime.cache().get(request.id())
              .map(r -> Long.parseLong(r.getVersion()))
              .orElse(-1L);
          started.put(request.id().getName(), new long[] {version, now});
          reconciles.incrementAndGet();
          synchronized (signal) {
            signal.notifyAll();
          }
          return Result.done();
        });
  }

  /** Forgets which versions were seen (keeps the count), so the probe holds no memory per name. */
  void forgetVersions() {
    started.clear();
  }

  /** How many reconciles have started. */
  int reconciles() {
    return reconciles.get();
  }

  /**
   * Waits until a reconcile of {@code stored}'s name has seen at least its version, and returns
   * the {@link System#nanoTime()} at which that reconcile started.
   */
  long awaitStart(Resource stored, Duration timeout) throws InterruptedException {
    long version = Long.parseLong(stored.getVersion());
    String name = stored.getId().getName();
    long deadline = System.nanoTime() + timeout.toNanos();
    synchronized (signal) {
      for (;;) {
        long[] seen = started.get(name);
        if (seen != null && seen[0] >= version) {
          return seen[1];
        }
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          throw new IllegalStateException("no reconcile of " + name + " at version " + version
              + " within " + timeout);
        }
        signal.wait(Math.max(1, left / 1_000_000));
      }
    }
  }

  /** Waits until at least {@code count} reconciles have started. */
  void awaitReconciles(int count, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    synchronized (signal) {
      while (reconciles.get() < count) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          throw new IllegalStateException(
              "only " + reconciles.get() + " of " + count + " reconciles within " + timeout);
        }
        signal.wait(Math.max(1, left / 1_000_000));
      }
    }
  }

  /** The id of the Artist {@code name} in the default tenancy. */
  static ID artist(String name) {
    return Ids.of(DemoTypes.ARTIST, name);
  }
}
