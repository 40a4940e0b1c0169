package io.setpoint.controller;

import io.setpoint.controller.time.Ticker;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps one controller or loop running while it should run: starts it, restarts it with backoff
 * when it fails to start or fails while running (0.5 s doubling to 1 min; a run that lasted past
 * the 2 s flap threshold resets the backoff), and stops it. A failing controller never takes the
 * process down. A start that cannot succeed by retrying (a type the server does not know) fails the
 * controller once: it is logged, kept as {@link #failure()}, and tried again only when the
 * controller is next placed here. All waiting is on the {@link Ticker}, so tests drive it.
 */
final class Supervisor {
  private static final Logger log = LoggerFactory.getLogger(Supervisor.class);
  static final Duration MIN_BACKOFF = Duration.ofMillis(500);
  static final Duration MAX_BACKOFF = Duration.ofMinutes(1);
  static final Duration FLAP_THRESHOLD = Duration.ofSeconds(2);

  private final String name;
  private final Supplier<? extends Runner> factory;
  private final Duration drain;
  private final Ticker ticker;
  private final Faults faults;
  private Runner running;
  /** The runner being started, and what failed in it before its start returned (a worker's death). */
  private Runner starting;
  private Throwable failedWhileStarting;
  /** When the running runner started, on the ticker. */
  private long runningSince;
  private Thread starter;
  private boolean wanted;
  private String failure;
  private Duration backoff = MIN_BACKOFF;

  Supervisor(String name, Supplier<? extends Runner> factory, Duration drain, Ticker ticker, Faults faults) {
    this.name = name;
    this.faults = faults;
    this.factory = factory;
    this.drain = drain;
    this.ticker = ticker;
  }

  synchronized Runner running() {
    return running;
  }

  /**
   * Why the controller does not run although it should: the error it is being restarted after, or
   * the reason it gave up; empty while it runs, and while it starts for the first time.
   */
  synchronized Optional<String> failure() {
    return Optional.ofNullable(failure);
  }

  /** Makes sure the controller runs (starting it in the background, retrying until it does). */
  synchronized void ensureRunning() {
    if (wanted) {
      return;
    }
    wanted = true;
    backoff = MIN_BACKOFF;
    long now = ticker.read();
    starter = Thread.ofVirtual().name("setpoint-supervisor-" + name).start(() -> startWithRetries(now));
  }

  /** Stops the controller, draining in-flight reconciles. */
  void ensureStopped() {
    Runner toStop;
    Thread toJoin;
    synchronized (this) {
      wanted = false;
      failure = null;
      toStop = running;
      running = null;
      toJoin = starter;
      starter = null;
    }
    if (toJoin != null) {
      toJoin.interrupt();
    }
    if (toStop != null) {
      toStop.stop(drain);
    }
  }

  /** A running runner failed: stop what is left of it and start a new one after the backoff. */
  private void failed(Runner runner, Throwable cause) {
    Duration wait;
    synchronized (this) {
      if (runner == starting) {
        // Seen once its start returns: until then it is not the running one, and dropping the
        // failure here would leave a controller without workers that looks as if it runs.
        failedWhileStarting = cause;
        return;
      }
      if (running != runner || !wanted) {
        return;
      }
      running = null;
      if (Duration.ofNanos(ticker.read() - runningSince).compareTo(FLAP_THRESHOLD) > 0) {
        backoff = MIN_BACKOFF;
      }
      wait = backoff;
      long wakeAt = ticker.read() + wait.toNanos();
      failure = "failed while running (" + cause + "); restarting in " + wait.toMillis() + " ms";
      faults.record(name, "run", "restarting in " + wait.toMillis() + " ms", cause, false);
      starter = Thread.ofVirtual().name("setpoint-supervisor-" + name).start(() -> {
        stopQuietly(runner);
        startWithRetries(wakeAt);
      });
    }
  }

  /**
   * Starts a runner once the ticker reads {@code wakeAt}, and again after each failed start. Every
   * wake-up time is fixed when the failure is seen, so a jump of a manual ticker that comes before
   * this thread waits still counts.
   */
  private void startWithRetries(long firstWakeAt) {
    long wakeAt = firstWakeAt;
    boolean backingOff = false;
    while (true) {
      try {
        ticker.sleepUntil(wakeAt);
      } catch (InterruptedException e) {
        return;
      }
      synchronized (this) {
        if (backingOff || failure != null) {
          backoff = backoff.multipliedBy(2).compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : backoff.multipliedBy(2);
        }
      }
      synchronized (this) {
        if (!wanted) {
          return;
        }
      }
      long began = ticker.read();
      Runner runner = null;
      try {
        Runner made = factory.get();
        runner = made;
        synchronized (this) {
          starting = made;
          failedWhileStarting = null;
        }
        made.onFailure(cause -> failed(made, cause));
        try {
          made.start();
        } finally {
          synchronized (this) {
            starting = null;
          }
        }
        Throwable early;
        synchronized (this) {
          early = failedWhileStarting;
          failedWhileStarting = null;
          if (wanted) {
            running = runner;
            runningSince = ticker.read();
            failure = null;
          }
        }
        if (running() != runner) {
          runner.stop(drain);
        } else if (early != null) {
          failed(runner, early);
        }
        return;
      } catch (InterruptedException e) {
        stopQuietly(runner);
        return;
      } catch (UnknownTypeException e) {
        stopQuietly(runner);
        giveUp(e.getMessage());
        return;
      } catch (Throwable e) {
        // Errors too (an assertion or a stack overflow in an initializer, an index or a source):
        // caught narrower, they ended this thread with no retry and no failure to show.
        Duration wait;
        synchronized (this) {
          if (Duration.ofNanos(ticker.read() - began).compareTo(FLAP_THRESHOLD) > 0) {
            backoff = MIN_BACKOFF;
          }
          wait = backoff;
          wakeAt = ticker.read() + wait.toNanos();
          backingOff = true;
          if (wanted) {
            failure = "failed to start (" + e + "); retrying in " + wait.toMillis() + " ms";
          }
        }
        stopQuietly(runner);
        faults.record(name, "start", "retrying in " + wait.toMillis() + " ms", e, false);
      }
    }
  }

  /** Stops what is left of a failed runner; a failure to stop must not end the supervisor's thread. */
  private void stopQuietly(Runner runner) {
    if (runner == null) {
      return;
    }
    try {
      runner.stop(Duration.ZERO);
    } catch (Throwable t) {
      log.warn("controller {}: stopping a failed run failed too", name, t);
    }
  }

  private void giveUp(String reason) {
    synchronized (this) {
      if (!wanted) {
        return;
      }
      failure = reason;
    }
    // The message says what to do; a stack trace would add nothing.
    log.error("controller {} failed and will not be retried: {}", name, reason);
  }
}
