package io.setpoint.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.setpoint.controller.time.ManualTicker;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The supervisor's restarts on a {@link ManualTicker}: the test moves time, so every backoff is
 * checked to the millisecond without waiting for it.
 */
class SupervisorTest {
  private static final Duration WAIT = Duration.ofSeconds(10);

  private final ManualTicker ticker = new ManualTicker();
  private final List<Scripted> runners = new CopyOnWriteArrayList<>();
  private final AtomicInteger startsToFail = new AtomicInteger();
  /** How many starts report a worker's death before they return, as a worker that dies at once does. */
  private final AtomicInteger startsWithADeadWorker = new AtomicInteger();
  private Supervisor supervisor;

  /** A runner whose start fails while {@link #startsToFail} is positive, and that can fail later. */
  private final class Scripted implements Runner {
    volatile Consumer<Throwable> failure;
    volatile boolean stopped;

    @Override
    public void start() {
      if (startsToFail.getAndDecrement() > 0) {
        throw new IllegalStateException("start failure " + runners.size());
      }
      if (startsWithADeadWorker.getAndDecrement() > 0) {
        failure.accept(new IllegalStateException("worker died during start"));
      }
    }

    @Override
    public void stop(Duration deadline) {
      stopped = true;
    }

    @Override
    public void onFailure(Consumer<Throwable> listener) {
      failure = listener;
    }

    @Override
    public int queueDepth() {
      return 0;
    }
  }

  private Supervisor supervisor() {
    supervisor = new Supervisor("test", () -> {
      Scripted runner = new Scripted();
      runners.add(runner);
      return runner;
    }, Duration.ZERO, ticker, new Faults(new SimpleMeterRegistry(), Clock.systemUTC()));
    return supervisor;
  }

  @AfterEach
  void stop() {
    if (supervisor != null) {
      supervisor.ensureStopped();
    }
  }

  /**
   * Checks that the supervisor waits {@code backoff} and not less: just before it, no new start;
   * at it, the next start comes. The supervisor fixes its wake-up time when it sees the failure,
   * before the failure is reported, so moving time right after the report cannot be missed.
   */
  private void awaitRestartAfter(Supervisor s, Duration backoff, int attempts) {
    await().atMost(WAIT).until(() -> s.failure().map(f -> f.contains("in " + backoff.toMillis() + " ms")).orElse(false));
    ticker.advance(backoff.minusMillis(1));
    assertThat(runners).as("starts after %s less 1 ms", backoff).hasSize(attempts - 1);
    ticker.advance(Duration.ofMillis(1));
    await().atMost(WAIT).until(() -> runners.size() == attempts);
  }

  @Test
  void aFailingStartIsRetriedWithABackoffThatDoublesAndTheFailureIsReportedMeanwhile() {
    startsToFail.set(3);
    Supervisor s = supervisor();
    s.ensureRunning();
    await().atMost(WAIT).until(() -> s.failure().isPresent());
    assertThat(s.failure().orElseThrow()).contains("failed to start", "start failure 1", "retrying in 500 ms");
    assertThat(s.running()).isNull();

    awaitRestartAfter(s, Duration.ofMillis(500), 2);
    awaitRestartAfter(s, Duration.ofMillis(1000), 3);
    awaitRestartAfter(s, Duration.ofMillis(2000), 4);

    await().atMost(WAIT).until(() -> s.running() != null);
    assertThat(s.failure()).as("running again: nothing to report").isEmpty();
    assertThat(runners.subList(0, 3)).allMatch(r -> r.stopped);
  }

  @Test
  void aControllerThatFailsWhileRunningIsRestartedAndOneThatFlapsBacksOffLonger() {
    Supervisor s = supervisor();
    s.ensureRunning();
    await().atMost(WAIT).until(() -> s.running() != null);

    // It ran for longer than the flap threshold: restarted after the shortest backoff.
    ticker.advance(Duration.ofSeconds(5));
    runners.get(0).failure.accept(new IllegalStateException("worker died"));
    assertThat(s.running()).isNull();
    assertThat(s.failure().orElseThrow()).contains("failed while running", "worker died", "restarting in 500 ms");
    awaitRestartAfter(s, Duration.ofMillis(500), 2);
    await().atMost(WAIT).until(() -> s.running() == runners.get(1));
    assertThat(runners.get(0).stopped).isTrue();
    assertThat(s.failure()).isEmpty();

    // It fails again at once: a flap, so the backoff doubles.
    runners.get(1).failure.accept(new IllegalStateException("worker died again"));
    awaitRestartAfter(s, Duration.ofMillis(1000), 3);
    await().atMost(WAIT).until(() -> s.running() == runners.get(2));
  }

  @Test
  void aFailureReportedByARunnerThatWasStoppedStartsNothing() {
    Supervisor s = supervisor();
    s.ensureRunning();
    await().atMost(WAIT).until(() -> s.running() != null);
    s.ensureStopped();

    runners.get(0).failure.accept(new IllegalStateException("late"));
    ticker.advance(Duration.ofMinutes(5));

    assertThat(s.running()).isNull();
    assertThat(s.failure()).isEmpty();
    assertThat(runners).hasSize(1);
  }

  @Test
  void aWorkerThatDiesBeforeItsRunnersStartReturnsIsAFailureWhileRunning() {
    startsWithADeadWorker.set(1);
    Supervisor s = supervisor();
    s.ensureRunning();

    await().atMost(WAIT).until(() -> s.failure().isPresent());
    assertThat(s.failure().orElseThrow()).contains("failed while running", "worker died during start", "restarting in 500 ms");
    assertThat(s.running()).isNull();
    awaitRestartAfter(s, Duration.ofMillis(500), 2);
    await().atMost(WAIT).until(() -> s.running() == runners.get(1));
    assertThat(runners.get(0).stopped).isTrue();
    assertThat(s.failure()).isEmpty();
  }
}
