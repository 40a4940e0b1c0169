package io.setpoint.controller.manager;

import io.setpoint.controller.cache.UnknownTypeException;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps one controller or loop running while it should run: starts it, restarts it with backoff when it
 * fails to start (0.5 s doubling to 1 min; a run that lasted past the 2 s flap threshold resets
 * the backoff), and stops it. A failing controller never takes the process down. A start that
 * cannot succeed by retrying (a type the server does not know) fails the controller once: it is
 * logged, kept as {@link #failure()}, and tried again only when the controller is next placed here.
 */
final class Supervisor {
  private static final Logger log = LoggerFactory.getLogger(Supervisor.class);
  private static final Duration MIN_BACKOFF = Duration.ofMillis(500);
  private static final Duration MAX_BACKOFF = Duration.ofMinutes(1);
  private static final Duration FLAP_THRESHOLD = Duration.ofSeconds(2);

  private final String name;
  private final Supplier<? extends Runner> factory;
  private final Duration drain;
  private Runner running;
  private Thread starter;
  private boolean wanted;
  private String failure;

  Supervisor(String name, Supplier<? extends Runner> factory, Duration drain) {
    this.name = name;
    this.factory = factory;
    this.drain = drain;
  }

  synchronized Runner running() {
    return running;
  }

  /** Why the controller gave up starting, until it is next stopped; empty while it runs or retries. */
  synchronized Optional<String> failure() {
    return Optional.ofNullable(failure);
  }

  /** Makes sure the controller runs (starting it in the background, retrying until it does). */
  synchronized void ensureRunning() {
    if (wanted) {
      return;
    }
    wanted = true;
    starter = Thread.ofVirtual().name("setpoint-supervisor-" + name).start(this::startWithRetries);
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

  private void startWithRetries() {
    Duration backoff = MIN_BACKOFF;
    while (true) {
      synchronized (this) {
        if (!wanted) {
          return;
        }
      }
      Runner runner = factory.get();
      long began = System.nanoTime();
      try {
        runner.start();
        synchronized (this) {
          if (wanted) {
            running = runner;
            return;
          }
        }
        runner.stop(drain);
        return;
      } catch (InterruptedException e) {
        runner.stop(Duration.ZERO);
        return;
      } catch (UnknownTypeException e) {
        runner.stop(Duration.ZERO);
        giveUp(e.getMessage());
        return;
      } catch (Exception | LinkageError e) {
        runner.stop(Duration.ZERO);
        if (Duration.ofNanos(System.nanoTime() - began).compareTo(FLAP_THRESHOLD) > 0) {
          backoff = MIN_BACKOFF;
        }
        log.error("controller {} failed to start; retrying in {} ms", name, backoff.toMillis(), e);
      }
      try {
        Thread.sleep(backoff);
      } catch (InterruptedException e) {
        return;
      }
      backoff = backoff.multipliedBy(2).compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : backoff.multipliedBy(2);
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
