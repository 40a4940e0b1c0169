package io.setpoint.controller.loop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.setpoint.controller.LoopRunner;
import io.setpoint.controller.Result;
import io.setpoint.controller.loop.Loop.Change;
import io.setpoint.controller.loop.Loop.Store;
import io.setpoint.controller.queue.Trigger;
import io.setpoint.controller.time.ManualTicker;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Each guarantee of a generic loop, checked so that an engine that broke it would fail: time runs
 * on a {@link ManualTicker} (no sleeps), handlings are held at gates to make events arrive while a
 * key is queued or in flight, and quiet periods are proven by a sentinel key handled after.
 */
class LoopGuaranteesTest {
  private static final Duration WAIT = Duration.ofSeconds(10);
  private final ManualTicker ticker = new ManualTicker();
  private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
  private final World world = new World();
  private LoopRunner runner;

  @AfterEach
  void stop() {
    if (runner != null) {
      runner.close();
    }
  }

  private LoopRunner start(UnaryOperator<Loop.Builder<String, String>> options) {
    Loop<String, String> loop = options.apply(Loop.named("test-loop")
        .listerWatcher(world.listerWatcher())
        .store(world.store())
        .handler(world.handler()))
        .build();
    return start(loop);
  }

  private LoopRunner start(Loop<?, ?> loop) {
    runner = LoopRunner.builder(loop).ticker(ticker).meterRegistry(meters).drainTimeout(Duration.ofSeconds(5)).start();
    return runner;
  }

  /** Waits until every key queued so far has been handled: a sentinel queued now comes after them. */
  private void awaitQuiet(String sentinel) {
    world.objects.put(sentinel, "s");
    world.emit(Change.added(sentinel));
    await().atMost(WAIT).until(() -> !world.of(sentinel).isEmpty());
  }

  @Test
  void aKeyIsQueuedAtMostOnceHoweverOftenItIsMentioned() throws Exception {
    world.objects.put("blocker", "b");
    World.Gate gate = world.gate("blocker");
    start(b -> b);
    gate.awaitEntered(); // the only worker is busy: whatever comes now waits in the queue

    world.objects.put("a", "1");
    for (int i = 0; i < 5; i++) {
      world.emit(Change.added("a"));
      world.emit(Change.modified("a"));
    }
    runner.relist();
    // "a" ready once, "blocker" marked to run again: two keys, however many mentions.
    await().atMost(WAIT).until(() -> world.lists.get() == 2 && runner.queueDepth() == 2);
    gate.open();
    awaitQuiet("z");

    assertThat(world.of("a")).hasSize(1);
    assertThat(world.of("a").get(0).triggers()).extracting(Trigger::kind)
        .contains(Trigger.Kind.EVENT, Trigger.Kind.MANUAL);
  }

  @Test
  void aKeyIsNeverHandledByTwoWorkersAtOnce() throws Exception {
    world.objects.put("a", "1");
    World.Gate gate = world.gate("a");
    start(b -> b.concurrency(4));
    gate.awaitEntered();

    for (int i = 0; i < 20; i++) {
      world.emit(Change.modified("a"));
    }
    world.objects.put("b", "1");
    world.emit(Change.added("b"));
    // Three workers are free and "a" is ready again, yet only "b" runs meanwhile.
    await().atMost(WAIT).until(() -> world.of("b").size() == 1);
    assertThat(world.of("a")).isEmpty();
    gate.open();

    await().atMost(WAIT).until(() -> world.of("a").size() == 2);
    awaitQuiet("z");
    assertThat(world.maxConcurrent("a")).isEqualTo(1);
    assertThat(world.of("a")).hasSize(2); // the 20 events during the first handling made one more
  }

  @Test
  void theHandlerSeesTheStateOfTheMomentItRunsNotOfWhenTheKeyWasQueued() throws Exception {
    world.objects.put("blocker", "b");
    World.Gate gate = world.gate("blocker");
    start(b -> b);
    gate.awaitEntered();

    world.objects.put("a", "1");
    world.emit(Change.added("a"));
    world.objects.put("a", "2"); // no event: the queued key must still be handled with "2"
    gate.open();

    await().atMost(WAIT).until(() -> world.of("a").size() == 1);
    assertThat(world.of("a").get(0).seen()).isEqualTo("a=2");
  }

  @Test
  void anEventDuringHandlingIsNotLost() throws Exception {
    world.objects.put("a", "1");
    World.Gate gate = world.gate("a");
    start(b -> b);
    gate.awaitEntered();

    world.objects.put("a", "2");
    world.emit(Change.modified("a"));
    gate.open();

    // Handled again at once, with the new state: not at the next list (the ticker never moves).
    await().atMost(WAIT).until(() -> world.of("a").size() == 2);
    assertThat(world.of("a").get(0).seen()).isEqualTo("a=1");
    assertThat(world.of("a").get(1).seen()).isEqualTo("a=2");
    assertThat(world.of("a").get(1).triggers()).extracting(Trigger::detail).containsExactly("modified a");
    assertThat(world.lists.get()).isEqualTo(1);
  }

  @Test
  void aKeyWhoseLockIsRefusedIsRetriedAfterTheDelayNotDropped() {
    AtomicInteger refusals = new AtomicInteger();
    Locker<String> busyOnce = new Locker<>() {
      private final Locker<String> memory = Locker.inMemory();

      @Override
      public boolean tryAcquire(String key) throws Exception {
        return key.equals("a") && refusals.getAndIncrement() == 0 ? false : memory.tryAcquire(key);
      }

      @Override
      public void release(String key, boolean gone) throws Exception {
        memory.release(key, gone);
      }

      @Override
      public Duration retryDelay() {
        return Duration.ofSeconds(2);
      }
    };
    world.objects.put("a", "1");
    start(b -> b.locker(busyOnce));
    await().atMost(WAIT).until(() -> refusals.get() == 1);

    ticker.advance(Duration.ofMillis(1999));
    awaitQuiet("z");
    assertThat(world.of("a")).isEmpty();

    ticker.advance(Duration.ofMillis(1));
    await().atMost(WAIT).until(() -> world.of("a").size() == 1);
    assertThat(world.of("a").get(0).triggers()).extracting(Trigger::detail).contains("lock held elsewhere");
  }

  @Test
  void failuresAreRetriedWithExponentialBackoffAtMostMaxRetriesTimes() {
    List<Integer> attempts = new CopyOnWriteArrayList<>();
    world.objects.put("a", "1");
    Loop<String, String> loop = Loop.named("test-loop")
        .listerWatcher(world.listerWatcher())
        .store(world.store())
        .handler((ctx, object) -> {
          if (ctx.key().equals("a")) {
            attempts.add(ctx.retries());
            throw new IllegalStateException("the outside world is down");
          }
          return Result.done();
        })
        .backoff(Duration.ofMillis(10), Duration.ofSeconds(1))
        .maxRetries(3)
        .build();
    start(loop);
    await().atMost(WAIT).until(() -> attempts.size() == 1);

    ticker.advance(Duration.ofMillis(9));
    assertThat(attempts).hasSize(1);
    ticker.advance(Duration.ofMillis(1));     // 10 ms after the first failure
    await().atMost(WAIT).until(() -> attempts.size() == 2);
    ticker.advance(Duration.ofMillis(19));
    assertThat(attempts).hasSize(2);
    ticker.advance(Duration.ofMillis(1));     // then 20 ms
    await().atMost(WAIT).until(() -> attempts.size() == 3);
    ticker.advance(Duration.ofMillis(40));    // then 40 ms
    await().atMost(WAIT).until(() -> attempts.size() == 4);

    // The third retry failed too: dropped until it is mentioned again, not retried forever.
    ticker.advance(Duration.ofSeconds(10));
    world.objects.put("z", "s");
    world.emit(Change.added("z"));
    ticker.advance(Duration.ofSeconds(10));
    await().atMost(WAIT).until(() -> meters.find("controller.runtime.reconcile")
        .tag("controller", "test-loop").tag("result", "success").counter() != null);
    assertThat(attempts).containsExactly(0, 1, 2, 3);
    assertThat(meters.get("controller.runtime.reconcile.errors").tag("controller", "test-loop").counter().count())
        .isEqualTo(4);
  }

  @Test
  void aRateLimitSpacesTheRetriesOfAllKeysOnTopOfEachKeysBackoff() {
    List<String> failed = new CopyOnWriteArrayList<>();
    world.objects.put("a", "1");
    world.objects.put("b", "1");
    world.objects.put("c", "1");
    Loop<String, String> loop = Loop.named("test-loop")
        .listerWatcher(world.listerWatcher())
        .store(world.store())
        .handler((ctx, object) -> {
          failed.add(ctx.key() + ctx.retries());
          throw new IllegalStateException("the outside world is down");
        })
        .backoff(Duration.ofMillis(10), Duration.ofSeconds(1))
        .rateLimit(2, 1) // a token every 500 ms, one saved
        .build();
    start(loop);
    await().atMost(WAIT).until(() -> failed.size() == 3);

    // Each key's backoff is over after 10 ms, but there is one token: one retry now...
    ticker.advance(Duration.ofMillis(10));
    await().atMost(WAIT).until(() -> failed.size() == 4);
    // ...and one more every 500 ms.
    ticker.advance(Duration.ofMillis(489));
    assertThat(failed).hasSize(4);
    ticker.advance(Duration.ofMillis(1));
    await().atMost(WAIT).until(() -> failed.size() == 5);
    ticker.advance(Duration.ofMillis(500));
    await().atMost(WAIT).until(() -> failed.size() == 6);
    assertThat(failed.subList(0, 3)).containsExactlyInAnyOrder("a0", "b0", "c0");
    assertThat(failed.subList(3, 6)).containsExactlyInAnyOrder("a1", "b1", "c1");
  }

  @Test
  void aHandlingThatOutlivesItsTimeoutIsCancelledAndRetried() {
    List<Boolean> cancelled = new CopyOnWriteArrayList<>();
    List<List<Trigger>> triggers = new CopyOnWriteArrayList<>();
    CountDownLatch never = new CountDownLatch(1);
    world.objects.put("a", "1");
    Loop<String, String> loop = Loop.named("test-loop")
        .listerWatcher(world.listerWatcher())
        .store(world.store())
        .handler((ctx, object) -> {
          triggers.add(ctx.triggers());
          try {
            if (triggers.size() == 1) {
              never.await(); // a call to an outside system that hangs
            }
            return Result.done();
          } finally {
            cancelled.add(ctx.isCancelled());
          }
        })
        .handleTimeout(Duration.ofMillis(200))
        .build();
    start(loop);
    await().atMost(WAIT).until(() -> triggers.size() == 1);
    ticker.advance(Duration.ofMillis(200)); // the timeout, on the loop's ticker
    await().atMost(WAIT).until(() -> meters.get("workqueue.retries").tag("name", "test-loop").counter().count() == 1);
    ticker.advance(Duration.ofMillis(5)); // the first retry's backoff

    await().atMost(WAIT).until(() -> cancelled.size() == 2);
    assertThat(cancelled).containsExactly(true, false);
    assertThat(triggers.get(1)).extracting(Trigger::detail).containsExactly("after failure: timed out");
  }

  @Test
  void aKeyThatVanishedFromTheListIsHandledAsAbsentWithoutAnyWatch() {
    world.objects.put("a", "1");
    world.objects.put("b", "1");
    Loop<String, String> loop = Loop.named("test-loop")
        .listerWatcher(world.listerOnly())
        .store(world.store())
        .handler(world.handler())
        .resync(Duration.ofSeconds(30))
        .build();
    start(loop);
    await().atMost(WAIT).until(() -> world.of("a").size() == 1 && world.of("b").size() == 1);

    world.objects.remove("b"); // gone, and nobody says so but the next list
    ticker.advance(Duration.ofSeconds(30));

    await().atMost(WAIT).until(() -> world.of("b").size() == 2);
    World.Handling absent = world.of("b").get(1);
    assertThat(absent.seen()).isNull();
    assertThat(absent.triggers()).extracting(Trigger::detail).contains("absent from the list");
    assertThat(world.of("a")).hasSize(2); // a resync handles every listed key again
  }

  @Test
  void loopsShareTheMetricsAndTracingOfControllers() {
    world.objects.put("a", "1");
    start(b -> b);
    await().atMost(WAIT).until(() -> world.of("a").size() == 1);
    world.emit(Change.modified("a"));
    await().atMost(WAIT).until(() -> world.of("a").size() == 2);

    World.Handling first = world.of("a").get(0);
    assertThat(first.triggers()).containsExactly(Trigger.startup());
    assertThat(first.mdcController()).isEqualTo("test-loop");
    assertThat(first.mdcKey()).isEqualTo("a");
    assertThat(world.of("a").get(1).triggers()).extracting(Trigger::toString).containsExactly("EVENT modified a");
    assertThat(meters.get("controller.runtime.reconcile").tag("controller", "test-loop").tag("result", "success")
        .counter().count()).isEqualTo(2);
    assertThat(meters.get("workqueue.adds").tag("name", "test-loop").counter().count()).isEqualTo(2);
    assertThat(meters.get("controller.runtime.reconcile.time").tag("controller", "test-loop").timer().count())
        .isEqualTo(2);
    assertThat(meters.get("workqueue.queue.duration").tag("name", "test-loop").timer().count()).isEqualTo(2);
  }

  @Test
  void aStoreThatReturnsTheKeyServesLoopsThatNeedNothingElse() throws Exception {
    assertThat(Store.<String>identity().get("k")).isEqualTo(Optional.of("k"));
  }
}
