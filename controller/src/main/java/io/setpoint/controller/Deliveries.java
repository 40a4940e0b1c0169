package io.setpoint.controller;

import io.setpoint.controller.time.Ticker;
import java.time.Duration;
import java.util.Collection;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Turns one controller's events into requests through the user's mappers. A mapping that throws,
 * {@link Error}s included, is recorded as a fault and run again with backoff on the ticker (100 ms
 * doubling to 30 s) until it succeeds or the controller stops: the event it maps is not known to
 * matter less than the others, so a mapper's bug costs latency and never an event.
 */
final class Deliveries {
  static final Duration FIRST_BACKOFF = Duration.ofMillis(100);
  static final Duration MAX_BACKOFF = Duration.ofSeconds(30);

  private final String controller;
  private final Faults faults;
  private final Ticker ticker;
  private final Set<Thread> retrying = ConcurrentHashMap.newKeySet();
  private volatile boolean closed;

  Deliveries(String controller, Faults faults, Ticker ticker) {
    this.controller = controller;
    this.faults = faults;
    this.ticker = ticker;
  }

  /**
   * Runs {@code mapping} and hands each request it returns to {@code sink}; if it throws, runs it
   * again later. {@code where} and {@code about} name the mapper and the event in the fault; they
   * are asked for only then, so a mapping that works costs no text.
   */
  <R> void deliver(Supplier<String> where, Supplier<String> about, Callable<? extends Collection<R>> mapping,
      Consumer<R> sink) {
    attempt(where, about, mapping, sink, FIRST_BACKOFF, false);
  }

  private <R> void attempt(Supplier<String> where, Supplier<String> about, Callable<? extends Collection<R>> mapping,
      Consumer<R> sink, Duration backoff, boolean retry) {
    Collection<R> requests;
    try {
      requests = mapping.call();
    } catch (Throwable t) {
      faults.record(controller, where.get(), about.get(), t, retry);
      if (!closed) {
        later(where, about, mapping, sink, backoff);
      }
      return;
    }
    requests.forEach(sink);
  }

  private <R> void later(Supplier<String> where, Supplier<String> about, Callable<? extends Collection<R>> mapping,
      Consumer<R> sink, Duration backoff) {
    // The wake-up is fixed now, so a manual ticker's jump before the thread waits still counts.
    long wakeAt = ticker.read() + backoff.toNanos();
    Duration next = backoff.multipliedBy(2).compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : backoff.multipliedBy(2);
    Thread thread = Thread.ofVirtual().name("setpoint-" + controller + "-redeliver").unstarted(() -> {
      try {
        ticker.sleepUntil(wakeAt);
        if (!closed) {
          attempt(where, about, mapping, sink, next, true);
        }
      } catch (InterruptedException e) {
        // closed
      } finally {
        retrying.remove(Thread.currentThread());
      }
    });
    retrying.add(thread);
    thread.start();
    if (closed) {
      thread.interrupt();
    }
  }

  /** Drops every retry still waiting: the controller stopped, and starts afresh from a listing. */
  void close() {
    closed = true;
    retrying.forEach(Thread::interrupt);
  }
}
