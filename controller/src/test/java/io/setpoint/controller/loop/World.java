package io.setpoint.controller.loop;

import io.setpoint.controller.Result;
import io.setpoint.controller.loop.Loop.Change;
import io.setpoint.controller.loop.Loop.Context;
import io.setpoint.controller.loop.Loop.Handler;
import io.setpoint.controller.loop.Loop.ListerWatcher;
import io.setpoint.controller.loop.Loop.Store;
import io.setpoint.controller.source.Source;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.slf4j.MDC;

/**
 * The outside world of a test loop: objects by key (what the lister lists and the store reads), a
 * watch the test fires by hand, gates that hold a handling of a key until the test opens them, and
 * a record of every handling with what it saw.
 */
final class World {
  /** One handling: the key, the object seen (null when absent), and its context. */
  record Handling(String key, String seen, List<io.setpoint.controller.queue.Trigger> triggers, int retries,
      boolean cancelled, String mdcController, String mdcKey) {}

  final Map<String, String> objects = new ConcurrentHashMap<>();
  final List<Handling> handlings = new CopyOnWriteArrayList<>();
  private final Map<String, Gate> gates = new ConcurrentHashMap<>();
  private final Map<String, AtomicInteger> inHandler = new ConcurrentHashMap<>();
  private final Map<String, AtomicInteger> maxInHandler = new ConcurrentHashMap<>();
  private final List<Consumer<Change<String>>> sinks = new CopyOnWriteArrayList<>();
  final AtomicInteger lists = new AtomicInteger();

  /** Holds the next handling of a key until opened. */
  static final class Gate {
    final CountDownLatch entered = new CountDownLatch(1);
    final CountDownLatch open = new CountDownLatch(1);

    void awaitEntered() throws InterruptedException {
      if (!entered.await(10, TimeUnit.SECONDS)) {
        throw new AssertionError("the gated handling never started");
      }
    }

    void open() {
      open.countDown();
    }
  }

  ListerWatcher<String> listerWatcher() {
    Source<Change<String>> watch = sink -> {
      sinks.add(sink);
      return () -> sinks.remove(sink);
    };
    return ListerWatcher.of(() -> {
      lists.incrementAndGet();
      return List.copyOf(objects.keySet());
    }, watch);
  }

  ListerWatcher<String> listerOnly() {
    return () -> {
      lists.incrementAndGet();
      return List.copyOf(objects.keySet());
    };
  }

  Store<String, String> store() {
    return key -> Optional.ofNullable(objects.get(key)).map(value -> key + "=" + value);
  }

  Handler<String, String> handler() {
    return Handler.of(
        (ctx, object) -> handle(ctx, object),
        (ctx, key) -> handle(ctx, null));
  }

  private Result handle(Context<String> ctx, String seen) throws InterruptedException {
    String key = ctx.key();
    int now = inHandler.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
    maxInHandler.computeIfAbsent(key, k -> new AtomicInteger()).accumulateAndGet(now, Math::max);
    try {
      Gate gate = gates.remove(key);
      if (gate != null) {
        gate.entered.countDown();
        gate.open.await();
      }
      return Result.done();
    } finally {
      inHandler.get(key).decrementAndGet();
      handlings.add(new Handling(key, seen, ctx.triggers(), ctx.retries(), ctx.isCancelled(),
          MDC.get("controller"), MDC.get("key")));
    }
  }

  /** The next handling of {@code key} will wait until the returned gate is opened. */
  Gate gate(String key) {
    Gate gate = new Gate();
    gates.put(key, gate);
    return gate;
  }

  /** Fires a watch event, as the outside world would. */
  void emit(Change<String> change) {
    sinks.forEach(sink -> sink.accept(change));
  }

  boolean watching() {
    return !sinks.isEmpty();
  }

  List<Handling> of(String key) {
    return handlings.stream().filter(h -> h.key().equals(key)).toList();
  }

  int maxConcurrent(String key) {
    AtomicInteger max = maxInHandler.get(key);
    return max == null ? 0 : max.get();
  }
}
