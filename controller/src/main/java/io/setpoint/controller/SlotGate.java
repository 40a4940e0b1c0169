package io.setpoint.controller;

import java.util.BitSet;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Which slots of a shard group this manager works on now, and how many keys of each are being
 * handled: a key is handled only while its slot is open, and closing a slot waits until the keys
 * in flight are done, so a slot handed to another member is never handled in two places at once.
 * Shared by every sharded controller and loop of the manager.
 */
final class SlotGate {
  private final BitSet open = new BitSet(ShardRing.SLOTS);
  private final int[] inFlight = new int[ShardRing.SLOTS];
  private final List<Listener> listeners = new CopyOnWriteArrayList<>();

  /** What a runner does when slots open or close. */
  interface Listener {
    /** {@code slots} just opened: queue their keys. */
    void opened(BitSet slots);

    /** {@code slots} just closed, none of their keys in flight: drop what waits of them. */
    void closed(BitSet slots);
  }

  void addListener(Listener listener) {
    listeners.add(listener);
  }

  void removeListener(Listener listener) {
    listeners.remove(listener);
  }

  synchronized boolean isOpen(int slot) {
    return open.get(slot);
  }

  /** Starts handling a key of {@code slot}; false, and nothing to end, when the slot is closed. */
  synchronized boolean enter(int slot) {
    if (!open.get(slot)) {
      return false;
    }
    inFlight[slot]++;
    return true;
  }

  /** Ends handling a key that {@link #enter} let in. */
  synchronized void exit(int slot) {
    if (--inFlight[slot] == 0) {
      notifyAll();
    }
  }

  synchronized BitSet opened() {
    return (BitSet) open.clone();
  }

  void open(BitSet slots) {
    synchronized (this) {
      open.or(slots);
    }
    for (Listener listener : listeners) {
      listener.opened((BitSet) slots.clone());
    }
  }

  /** Closes {@code slots} and waits until no key of theirs is in flight. */
  void close(BitSet slots) throws InterruptedException {
    synchronized (this) {
      open.andNot(slots);
      for (int slot = slots.nextSetBit(0); slot >= 0; slot = slots.nextSetBit(slot + 1)) {
        while (inFlight[slot] > 0) {
          wait();
        }
      }
    }
    for (Listener listener : listeners) {
      listener.closed((BitSet) slots.clone());
    }
  }
}
