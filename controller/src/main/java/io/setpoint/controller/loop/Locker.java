package io.setpoint.controller.loop;

import java.time.Duration;
import java.util.function.BiConsumer;

/**
 * Decides which instance of a loop may handle a key, so that no key is handled by two instances at
 * once. Within one instance the work queue already guarantees one handling per key at a time; a
 * locker matters when several instances (processes) run the same loop over the same keys.
 *
 * <p>The loop calls {@link #tryAcquire} before fetching and handling a key, and {@link #release}
 * after. A refused key is not dropped: it is queued again after {@link #retryDelay()}, so the
 * instance takes it over when the holder goes away.
 *
 * <p>Two implementations: {@link #inMemory()} (the default; one process) and {@link LeaseLocker}
 * (leases stored in a Setpoint server, shared by every instance that talks to it).
 *
 * @param <K> the key type
 */
public interface Locker<K> extends AutoCloseable {

  /**
   * True if this instance may handle {@code key} now; it then holds the key until {@link
   * #release}. False if another instance holds it. Throwing counts as a failed handling.
   */
  boolean tryAcquire(K key) throws Exception;

  /**
   * The handling of {@code key} ended. {@code gone} is true when the handler saw the key absent and
   * succeeded, so a shared locker can drop its record of the key. A shared locker may keep the key
   * assigned to this instance afterwards ({@link LeaseLocker} does), so that instances split the
   * keys between them instead of each handling every key.
   */
  void release(K key, boolean gone) throws Exception;

  /** How long a refused key waits before this instance tries it again; default 1 s. */
  default Duration retryDelay() {
    return Duration.ofSeconds(1);
  }

  /**
   * Calls {@code listener} with what failed and why whenever work the locker does in the background
   * fails ({@link LeaseLocker}: renewing its heartbeat), so that the loop counts it among its faults.
   * The loop sets it before it starts; the default locker has no background work.
   */
  default void onFault(BiConsumer<String, Throwable> listener) {}

  /** Gives up everything this instance holds; called when the loop stops. Does nothing by default. */
  @Override
  default void close() {}

  /** A lock per key in this process's memory: the default, for a loop that runs in one instance. */
  static <K> Locker<K> inMemory() {
    return new InMemoryLocker<>();
  }
}
