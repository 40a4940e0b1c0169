package io.setpoint.controller.queue;

import java.util.Arrays;

/**
 * A binary min-heap of entries by due time (ties by insertion order). Each entry knows its index, so
 * removing it or moving its due time is O(log n) instead of a linear search. Due times are compared
 * by their difference, which is correct across {@code nanoTime} overflow.
 */
final class DelayHeap<K> {
  private Entry<K>[] heap = newArray(16);
  private int size;

  @SuppressWarnings("unchecked")
  private static <K> Entry<K>[] newArray(int n) {
    return (Entry<K>[]) new Entry<?>[n];
  }

  int size() {
    return size;
  }

  /** The entry due first, or null. */
  Entry<K> peek() {
    return size == 0 ? null : heap[0];
  }

  void add(Entry<K> e) {
    if (size == heap.length) {
      heap = Arrays.copyOf(heap, size * 2);
    }
    e.heapIndex = size;
    heap[size++] = e;
    siftUp(e.heapIndex);
  }

  /** Removes and returns the entry due first. */
  Entry<K> poll() {
    Entry<K> top = heap[0];
    removeAt(0);
    return top;
  }

  void remove(Entry<K> e) {
    removeAt(e.heapIndex);
  }

  /** Restores the order after {@code e.due} changed. */
  void changed(Entry<K> e) {
    int i = e.heapIndex;
    siftUp(i);
    if (heap[i] == e) {
      siftDown(i);
    }
  }

  /** Entry at {@code i} for invariant checks. */
  Entry<K> at(int i) {
    return heap[i];
  }

  private void removeAt(int i) {
    Entry<K> removed = heap[i];
    removed.heapIndex = -1;
    int last = --size;
    if (i != last) {
      Entry<K> moved = heap[last];
      heap[i] = moved;
      moved.heapIndex = i;
      heap[last] = null;
      siftUp(i);
      if (heap[i] == moved) {
        siftDown(i);
      }
    } else {
      heap[last] = null;
    }
  }

  private static boolean before(Entry<?> a, Entry<?> b) {
    long d = a.due - b.due;
    return d < 0 || (d == 0 && a.seq < b.seq);
  }

  private void siftUp(int i) {
    Entry<K> e = heap[i];
    while (i > 0) {
      int parent = (i - 1) >>> 1;
      Entry<K> p = heap[parent];
      if (!before(e, p)) {
        break;
      }
      heap[i] = p;
      p.heapIndex = i;
      i = parent;
    }
    heap[i] = e;
    e.heapIndex = i;
  }

  private void siftDown(int i) {
    Entry<K> e = heap[i];
    int half = size >>> 1;
    while (i < half) {
      int child = 2 * i + 1;
      int right = child + 1;
      if (right < size && before(heap[right], heap[child])) {
        child = right;
      }
      Entry<K> c = heap[child];
      if (!before(c, e)) {
        break;
      }
      heap[i] = c;
      c.heapIndex = i;
      i = child;
    }
    heap[i] = e;
    e.heapIndex = i;
  }
}
