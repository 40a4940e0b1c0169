package io.setpoint.storage.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.setpoint.api.v1.WatchEvent;
import io.setpoint.storage.Backend.WatchCursor;
import io.setpoint.storage.StorageException.Reason;
import io.setpoint.storage.StorageException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;

/** A thread blocked in {@link WatchCursor#next()}, to check what wakes it. */
public final class BlockedConsumer {
  private final AtomicReference<Throwable> outcome = new AtomicReference<>();

  private BlockedConsumer() {}

  /** Starts a thread calling {@code watch.next()} and returns once it waits for an event. */
  public static BlockedConsumer start(WatchCursor watch, Duration timeout) {
    BlockedConsumer consumer = new BlockedConsumer();
    Thread thread =
        new Thread(
            () -> {
              try {
                WatchEvent event = watch.next();
                consumer.outcome.set(new AssertionError("next() returned " + event));
              } catch (Throwable t) {
                consumer.outcome.set(t);
              }
            },
            "blocked-watch-consumer");
    thread.setDaemon(true);
    thread.start();
    await()
        .atMost(timeout)
        .until(
            () ->
                consumer.outcome.get() != null
                    || thread.getState() == Thread.State.WAITING
                    || thread.getState() == Thread.State.TIMED_WAITING);
    assertThat(consumer.outcome.get())
        .as("next() returned or failed before anything woke it")
        .isNull();
    return consumer;
  }

  /** Waits until {@code next()} failed, and checks it failed for {@code reason}. */
  public void assertEndsWith(Reason reason, Duration timeout) {
    await().atMost(timeout).until(() -> outcome.get() != null);
    assertThat(outcome.get())
        .isInstanceOfSatisfying(
            StorageException.class, e -> assertThat(e.reason()).isEqualTo(reason));
  }
}
