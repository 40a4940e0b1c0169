package io.setpoint.controller.manager;

import java.util.BitSet;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * Which slots of a shard group this manager works on now, and how many keys of each are being
 * handled: a key is handled only while its slot is open, and closing a slot waits until the keys
 * in flight are done, so a slot handed to another member is never handled in two places at once.
 * Shared by every sharded controller and loop of the manager.
 */
final class SlotGate {
  private final BitSet open = new BitSet(ShardRing.SLOTS);
  private final int[] inFlight = new int[ShardRing.SLOTS];
  private final List<Consumer<BitSet>> openListeners = new CopyOnWriteArrayList<>();

  /** Calls {@code listener} with the slots each {@link #open} opens, after they are open. */
  void onOpen(Consumer<BitSet> listener) {
    openListeners.add(listener);
  }

  void removeOnOpen(Consumer<BitSet> listener) {
    openListeners.remove(listener);
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
    for (Consumer<BitSet> listener : openListeners) {
      listener.accept((BitSet) slots.clone());
    }
  }

  /** Closes {@code slots} and waits until no key of theirs is in flight. */
  synchronized void close(BitSet slots) throws InterruptedException {
    open.andNot(slots);
    for (int slot = slots.nextSetBit(0); slot >= 0; slot = slots.nextSetBit(slot + 1)) {
      while (inFlight[slot] > 0) {
        wait();
      }
    }
  }
}
