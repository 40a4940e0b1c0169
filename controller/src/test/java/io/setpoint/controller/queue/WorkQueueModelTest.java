package io.setpoint.controller.queue;

import static io.setpoint.controller.queue.Priority.HIGH;
import static io.setpoint.controller.queue.Priority.LOW;
import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;
import static org.quicktheories.generators.SourceDSL.longs;

import io.setpoint.controller.time.ManualTicker;
import java.time.Duration;
import java.util.ArrayList;
import io.setpoint.testkit.DroppingOps;
import io.setpoint.testkit.SeededTheory;
import java.util.List;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.quicktheories.QuickTheory;
import org.quicktheories.api.Pair;
import org.quicktheories.core.Configuration;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

/**
 * Model-based properties of {@link WorkQueue}: random sequences of adds, delayed and rate-limited
 * adds, takes, dones, forgets and clock advances over a few keys, tenants and priorities, checked
 * after every step against a plain model of what each key has pending. The properties:
 *
 * <ol type="a">
 *   <li>a key is never handed out while it is in flight;
 *   <li>every add is followed, eventually, by a take of that key that starts after it (no lost
 *       updates), checked by finishing every scenario with a drain far in the future;
 *   <li>a key is in the queue at most once (the queue's own structural check, and the model's
 *       single pending state per key);
 *   <li>nothing is handed out before its due time, and whatever is ready is handed out;
 *   <li>{@code depth()} and {@code delayed()} match the model;
 * </ol>
 *
 * plus: triggers, priority, retry count and enqueue time of each item match the model, and a LOW
 * key is served while a HIGH one is ready only after it aged, and never twice in a row.
 *
 * <p>Property-based with QuickTheories: a failure is shrunk (see {@link DroppingOps}) and reported
 * with its smallest scenario and the seed. CI runs a fixed seed, so every run checks the same
 * scenarios. QuickTheories' own system properties override the defaults below: {@code ./mvnw -pl
 * controller test -Dtest=WorkQueueModelTest -DQT_SEED=$RANDOM$RANDOM} explores another seed (a
 * failure prints its seed; pass it back as {@code -DQT_SEED} to replay it), {@code
 * -DQT_EXAMPLES=20000} runs longer.
 */
class WorkQueueModelTest {
  private static final int KEYS = 6;
  private static final long MS = 1_000_000L;
  private static final long AGING = 50 * MS;
  private static final long BACKOFF_BASE = 5 * MS;
  private static final long BACKOFF_MAX = 1000 * MS;

  /** One step of a scenario. */
  sealed interface Op {}

  record Add(int key, Priority priority) implements Op {}

  record AddAfter(int key, int delayMs, Priority priority, boolean override) implements Op {}

  record AddRateLimited(int key) implements Op {}

  record Take() implements Op {}

  /** Marks one of the keys in flight done; which one is {@code pick} modulo their number. */
  record Done(int pick) implements Op {}

  record Forget(int key) implements Op {}

  record Advance(int ms) implements Op {}

  /** The number of scenarios CI must check. */
  private static final int SCENARIOS = 1000;

  /**
   * Examples QuickTheories draws: a few more than {@link #SCENARIOS}, since it skips a scenario it
   * has already drawn.
   */
  private static final int EXAMPLES = 1020;

  /** Shrink attempts after a failure; each replays a whole scenario. */
  private static final int SHRINK_CYCLES = 10_000;

  private static final long SEED = 0x5e7_901_17L;

  /** A start close enough to the end of the long range that the clock wraps within a scenario. */
  private static final long WRAPS = Long.MAX_VALUE - 100 * MS;

  /**
   * The values every op draws, whatever its kind, so that every op takes the same number of draws:
   * shrinking an op's kind or parameters then never shifts the ops after it.
   */
  private record Draw(
      int key, int delayMs, Priority priority, boolean override, int pick, int advanceMs) {}

  static Gen<Op> op() {
    Gen<Integer> key = integers().between(0, KEYS - 1);
    Gen<Integer> delayMs = integers().between(-2, 120);
    Gen<Priority> priority = Generate.enumValues(Priority.class);
    Gen<Boolean> override = Generate.booleans();
    Gen<Integer> pick = integers().between(0, KEYS);
    Gen<Integer> advanceMs = integers().between(0, 120);
    Gen<Draw> draw =
        in ->
            new Draw(
                key.generate(in),
                delayMs.generate(in),
                priority.generate(in),
                override.generate(in),
                pick.generate(in),
                advanceMs.generate(in));
    // Shrinking moves towards the first kind: an advance, which shrinks to a no-op of 0 ms.
    return Generate.frequency(
        Pair.of(3, draw.<Op>map(d -> new Advance(d.advanceMs()))),
        Pair.of(6, draw.<Op>map(d -> new Add(d.key(), d.priority()))),
        Pair.of(
            3, draw.<Op>map(d -> new AddAfter(d.key(), d.delayMs(), d.priority(), d.override()))),
        Pair.of(2, draw.<Op>map(d -> new AddRateLimited(d.key()))),
        Pair.of(6, draw.<Op>map(d -> new Take())),
        Pair.of(4, draw.<Op>map(d -> new Done(d.pick()))),
        Pair.of(1, draw.<Op>map(d -> new Forget(d.key()))));
  }

  /** One scenario: with tenants or not, the ticker's start, and the ops. */
  record Case(boolean tenants, long start, List<Op> ops) {
    Case without(int op) {
      List<Op> fewer = new ArrayList<>(ops);
      fewer.remove(op);
      return new Case(tenants, start, fewer);
    }
  }

  static Gen<Case> cases() {
    return Generate.booleans()
        .zip(
            starts(),
            lists().of(op()).ofType(lists().<Op, List<Op>>arrayList()).ofSizeBetween(1, 120),
            Case::new);
  }

  /**
   * 0, a start where the clock wraps within the scenario, or any start (one in ten of those an
   * extreme of the long range), each a third of the time; shrinks towards 0.
   */
  static Gen<Long> starts() {
    Gen<Long> any =
        longs().all().mix(Generate.pick(List.of(Long.MIN_VALUE, -1L, Long.MAX_VALUE)), 10);
    return integers()
        .between(0, 2)
        .zip(any, (which, start) -> which == 0 ? 0L : which == 1 ? WRAPS : start);
  }

  /**
   * QuickTheories with this test's defaults, each overridden by QuickTheories' own system property
   * ({@code QT_SEED}, {@code QT_EXAMPLES}, {@code QT_SHRINKS}) when that is set.
   */
  static QuickTheory quickTheory() {
    return SeededTheory.of(SEED, EXAMPLES, SHRINK_CYCLES);
  }

  @Test
  void behavesLikeTheModel() {
    Coverage coverage = new Coverage();
    Consumer<Case> property =
        c -> {
          Run run = new Run(c.tenants(), c.start());
          run.play(c.ops());
          coverage.add(run);
        };
    quickTheory()
        .withReporter(new DroppingOps<Case>(property, c -> c.ops().size(), Case::without, 1))
        .forAll(cases())
        .checkAssert(property);
    coverage.check();
  }

  /**
   * How many scenarios reached each interesting path; a guard against a generator that stops
   * reaching them.
   */
  private static final class Coverage {
    int scenarios;
    int agedServed;
    int dirtyServed;
    int delayedServed;
    int overrodeLater;

    void add(Run run) {
      scenarios++;
      agedServed += run.agedServed > 0 ? 1 : 0;
      dirtyServed += run.dirtyServed > 0 ? 1 : 0;
      delayedServed += run.delayedServed > 0 ? 1 : 0;
      overrodeLater += run.overrodeLater > 0 ? 1 : 0;
    }

    void check() {
      System.out.printf(
          "WorkQueueModelTest: %d scenarios; %% aged LOW served before a ready HIGH %.1f, dirty key"
              + " served after done %.1f, delayed key served %.1f, override moved a due time later"
              + " %.1f%n",
          scenarios,
          percent(agedServed),
          percent(dirtyServed),
          percent(delayedServed),
          percent(overrodeLater));
      if (System.getProperty(Configuration.EXAMPLES) == null) {
        assertThat(scenarios).as("scenarios checked").isGreaterThanOrEqualTo(SCENARIOS);
      } else if (scenarios < SCENARIOS) {
        return; // a short run asked for with QT_EXAMPLES: too few scenarios for percentages
      }
      assertThat(percent(agedServed))
          .as("percent serving an aged LOW key before a ready HIGH one")
          .isGreaterThanOrEqualTo(1);
      assertThat(percent(dirtyServed))
          .as("percent serving a key added while in flight after done")
          .isGreaterThanOrEqualTo(10);
      assertThat(percent(delayedServed))
          .as("percent serving a delayed key")
          .isGreaterThanOrEqualTo(10);
      assertThat(percent(overrodeLater))
          .as("percent overriding a due time with a later one")
          .isGreaterThanOrEqualTo(1);
    }

    private double percent(int count) {
      return 100.0 * count / scenarios;
    }
  }

  /** The model's view of one key. */
  static final class KeyModel {
    static final int NONE = 0;
    static final int READY = 1;
    static final int DELAYED = 2;

    int pending = NONE;
    boolean inFlight;
    long due;
    long readyAt;
    Priority priority;
    Trigger first;
    Trigger last;
    int count;
    int failures;
    long lastAdd = -1; // step of the last accepted add
    long lastTake = -1; // step of the last take
    boolean addedInFlight; // coverage only
    boolean fromDelay; // coverage only

    void cause(Trigger t, Priority p) {
      if (count == 0) {
        first = t;
        priority = p;
      } else {
        priority = Priority.max(priority, p);
      }
      last = t;
      count++;
    }
  }

  /** One scenario: the queue, the clock, and the model beside them. */
  static final class Run {
    final ManualTicker ticker;
    final WorkQueue<Integer> queue;
    final TreeMap<Integer, KeyModel> model = new TreeMap<>();
    final List<String> log = new ArrayList<>();
    long step;
    int agedServed;
    boolean lastTakeWasLowOverHigh;
    int dirtyServed;
    int delayedServed;
    int overrodeLater;

    Run(boolean tenants, long start) {
      ticker = new ManualTicker(start);
      WorkQueue.Builder<Integer> b =
          WorkQueue.<Integer>builder()
              .ticker(ticker)
              .aging(Duration.ofNanos(AGING))
              .backoff(Duration.ofNanos(BACKOFF_BASE), Duration.ofNanos(BACKOFF_MAX));
      if (tenants) {
        b.tenant(k -> "t" + (k % 3));
      }
      queue = b.build();
      for (int k = 0; k < KEYS; k++) {
        model.put(k, new KeyModel());
      }
    }

    long now() {
      return ticker.read();
    }

    void play(List<Op> ops) {
      for (Op op : ops) {
        apply(op);
        check();
      }
      // (b) Finish: everything in flight is done, far in the future, and the queue drained.
      for (int key : inFlightInQueue()) {
        queue.done(key);
        model.get(key).inFlight = false;
      }
      ticker.advance(Duration.ofNanos(10 * BACKOFF_MAX));
      promote();
      check();
      while (take()) {
        for (int key : inFlightInQueue()) {
          model.get(key).inFlight = false;
          queue.done(key);
        }
        check();
      }
      model.forEach(
          (key, k) -> {
            if (k.lastAdd >= 0) {
              assertThat(k.lastTake)
                  .as("(b) key %d added at step %d was taken after it; log %s", key, k.lastAdd, log)
                  .isGreaterThan(k.lastAdd);
            }
          });
    }

    private List<Integer> inFlightInQueue() {
      List<Integer> out = new ArrayList<>();
      model.forEach((key, k) -> {
        if (k.inFlight) {
          out.add(key);
        }
      });
      return out;
    }

    void apply(Op op) {
      step++;
      log.add(op.toString());
      Trigger cause = Trigger.event("step " + step);
      switch (op) {
        case Add a -> {
          queue.add(a.key(), cause, a.priority());
          makeReady(a.key(), cause, a.priority());
        }
        case AddAfter a -> {
          queue.addAfter(
              a.key(), Duration.ofMillis(a.delayMs()), cause, a.priority(), a.override());
          if (a.delayMs() <= 0) {
            makeReady(a.key(), cause, a.priority());
          } else {
            schedule(a.key(), now() + a.delayMs() * MS, cause, a.priority(), a.override());
          }
        }
        case AddRateLimited a -> {
          queue.addRateLimited(a.key(), cause);
          KeyModel k = model.get(a.key());
          k.failures++;
          long delay = Math.min(BACKOFF_MAX, BACKOFF_BASE << Math.min(k.failures - 1, 40));
          schedule(a.key(), now() + delay, cause, HIGH, false);
          assertThat(queue.retries(a.key())).isEqualTo(k.failures);
        }
        case Take t -> take();
        case Done d -> {
          List<Integer> inFlight = inFlightInQueue();
          if (!inFlight.isEmpty()) {
            int key = inFlight.get(d.pick() % inFlight.size());
            queue.done(key);
            model.get(key).inFlight = false;
          }
        }
        case Forget f -> {
          queue.forget(f.key());
          model.get(f.key()).failures = 0;
        }
        case Advance a -> {
          ticker.advance(Duration.ofMillis(a.ms()));
          promote();
        }
      }
    }

    /** Delayed keys whose time has come are ready, since their due time. */
    void promote() {
      for (KeyModel k : model.values()) {
        if (k.pending == KeyModel.DELAYED && k.due - now() <= 0) {
          k.pending = KeyModel.READY;
          k.readyAt = k.due;
          k.fromDelay = true;
        }
      }
    }

    void makeReady(int key, Trigger cause, Priority p) {
      KeyModel k = model.get(key);
      k.cause(cause, p);
      k.addedInFlight |= k.inFlight;
      k.fromDelay &= k.pending == KeyModel.READY;
      k.lastAdd = step;
      if (k.pending != KeyModel.READY) {
        k.pending = KeyModel.READY;
        k.readyAt = now();
      }
    }

    void schedule(int key, long due, Trigger cause, Priority p, boolean override) {
      KeyModel k = model.get(key);
      k.cause(cause, p);
      k.addedInFlight |= k.inFlight;
      k.lastAdd = step;
      switch (k.pending) {
        case KeyModel.READY -> {}
        case KeyModel.DELAYED -> {
          if (override || due - k.due < 0) {
            overrodeLater += due - k.due > 0 ? 1 : 0;
            k.due = due;
          }
        }
        default -> {
          k.pending = KeyModel.DELAYED;
          k.due = due;
        }
      }
    }

    /** Takes without blocking and checks the item against the model; false when none was ready. */
    boolean take() {
      WorkQueue.Item<Integer> item = Queues.next(queue);
      boolean highReady = false;
      boolean anyReady = false;
      for (KeyModel k : model.values()) {
        if (k.pending == KeyModel.READY && !k.inFlight) {
          anyReady = true;
          highReady |= k.priority == HIGH;
        }
      }
      if (item == null) {
        assertThat(anyReady).as("(d) a ready key was not handed out; log %s", log).isFalse();
        return false;
      }
      KeyModel k = model.get(item.key());
      assertThat(k.inFlight).as("(a) %s handed out while in flight; log %s", item, log).isFalse();
      assertThat(k.pending)
          .as("(d) %s handed out before it was due; log %s", item, log)
          .isEqualTo(KeyModel.READY);
      assertThat(item.priority()).as("priority of %s", item).isEqualTo(k.priority);
      assertThat(item.trigger()).isEqualTo(k.first);
      assertThat(item.triggers().getLast()).isEqualTo(k.last);
      assertThat(item.triggerCount()).isEqualTo(k.count);
      assertThat(item.enqueuedAt()).isEqualTo(k.readyAt);
      assertThat(item.takenAt()).isEqualTo(now());
      assertThat(item.retries()).isEqualTo(k.failures);
      boolean lowOverHigh = item.priority() == LOW && highReady;
      if (lowOverHigh) {
        assertThat(now() - item.enqueuedAt())
            .as("LOW %s served before a ready HIGH key without aging; log %s", item, log)
            .isGreaterThanOrEqualTo(AGING);
        assertThat(lastTakeWasLowOverHigh)
            .as("two LOW keys in a row served before a ready HIGH key; log %s", log)
            .isFalse();
      }
      lastTakeWasLowOverHigh = lowOverHigh;
      agedServed += lowOverHigh ? 1 : 0;
      dirtyServed += k.addedInFlight ? 1 : 0;
      delayedServed += k.fromDelay ? 1 : 0;
      k.addedInFlight = false;
      k.fromDelay = false;
      k.inFlight = true;
      k.pending = KeyModel.NONE;
      k.count = 0;
      k.lastTake = ++step; // a step of its own, also during the final drain
      return true;
    }

    void check() {
      queue.checkInvariants(); // (c) structurally: one entry per key, in one place
      int ready = 0;
      int delayed = 0;
      int inFlight = 0;
      for (KeyModel k : model.values()) {
        ready += k.pending == KeyModel.READY ? 1 : 0;
        delayed += k.pending == KeyModel.DELAYED ? 1 : 0;
        inFlight += k.inFlight ? 1 : 0;
      }
      assertThat(queue.depth()).as("(e) depth; log %s", log).isEqualTo(ready);
      assertThat(queue.delayed()).as("(e) delayed; log %s", log).isEqualTo(delayed);
      assertThat(queue.inFlight()).as("in flight; log %s", log).isEqualTo(inFlight);
    }
  }
}
