package io.setpoint.controller.loop;

import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * {@link Locker#inMemory()}: a set of held keys. Shared between loops of one process it keeps them
 * off each other's keys; a single loop never contends with itself (its queue hands a key to one
 * worker at a time), so for it every acquire succeeds.
 */
final class InMemoryLocker<K> implements Locker<K> {
  private final Set<K> held = ConcurrentHashMap.newKeySet();

  @Override
  public boolean tryAcquire(K key) {
    return held.add(Objects.requireNonNull(key, "key"));
  }

  @Override
  public void release(K key, boolean gone) {
    held.remove(key);
  }

  @Override
  public String toString() {
    return "Locker.inMemory()[" + held.size() + " held]";
  }
}
