package io.setpoint.controller;

import io.setpoint.api.v1.HashRange;
import io.setpoint.client.Watch;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * What passes between an informer's thread and the threads that use its cache: the ranges asked
 * for and the listing that holds them, the revision the store has reached, and the watch being
 * followed. The informer's thread moves it forward; the others restrict it and wait on it.
 */
final class InformerProgress {
  private final CountDownLatch primed = new CountDownLatch(1);
  /** Notified after the store reflects a newer revision or ranges, and on a new restriction. */
  private final Object progress = new Object();
  /** The newest revision applied to the store; written by the informer's thread only. */
  private volatile long revision;
  /** The ranges held, all of the type when null; guarded by {@code progress}. */
  private List<HashRange> ranges;
  /** Counts restrictions; guarded by {@code progress}. */
  private long generation;
  /** The restriction whose listing the store reflects; -1 before the first listing. */
  private volatile long listedGeneration = -1;
  /** Set when the ranges changed and the watch must start over with them. */
  private volatile boolean restart;
  private volatile boolean closed;
  private volatile Watch current;
  /** The restriction {@link #current} follows; guarded by {@code progress}. */
  private long currentGeneration;

  /** A restriction: the ranges to hold (all of the type when null) and its number. */
  record Restriction(List<HashRange> ranges, long generation) {}

  /** {@code ranges}: those held from the start, all of the type when null. */
  InformerProgress(List<HashRange> ranges) {
    this.ranges = ranges;
  }

  /** Waits until the first snapshot is in the store. */
  boolean awaitPrimed(Duration timeout) throws InterruptedException {
    return primed.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
  }

  boolean isPrimed() {
    return primed.getCount() == 0;
  }

  /** The newest revision applied to the store. */
  long revision() {
    return revision;
  }

  /**
   * Waits until the store reflects every change of this type up to {@code atLeast} (a write's
   * version); false on timeout.
   */
  boolean awaitRevision(long atLeast, Duration timeout) throws InterruptedException {
    if (revision >= atLeast) {
      return true;
    }
    long deadline = System.nanoTime() + timeout.toNanos();
    synchronized (progress) {
      while (revision < atLeast) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        TimeUnit.NANOSECONDS.timedWait(progress, left);
      }
    }
    return true;
  }

  /** The store reflects revision {@code to}; called by the informer's thread. */
  void advance(long to) {
    if (to > revision) {
      revision = to;
      synchronized (progress) {
        progress.notifyAll();
      }
    }
  }

  /**
   * Holds only {@code ranges} of the type from now on (all of it when null, nothing when empty);
   * returns the number to {@linkplain #awaitListed await}.
   */
  long restrict(List<HashRange> ranges) {
    long gen;
    Watch stale;
    synchronized (progress) {
      if (Objects.equals(ranges, this.ranges)) {
        return generation; // the same ranges: wait for their listing, if it is still under way
      }
      this.ranges = ranges == null ? null : List.copyOf(ranges);
      gen = ++generation;
      restart = true;
      progress.notifyAll();
      // Only a watch of older ranges: the thread may already follow the new ones.
      stale = currentGeneration < gen ? current : null;
    }
    if (stale != null) {
      stale.close();
    }
    return gen;
  }

  /** Waits until the store holds what the restriction {@code gen} asked for; false on timeout. */
  boolean awaitListed(long gen, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    synchronized (progress) {
      while (listedGeneration < gen) {
        long left = deadline - System.nanoTime();
        if (left <= 0 || closed) {
          return listedGeneration >= gen;
        }
        TimeUnit.NANOSECONDS.timedWait(progress, left);
      }
    }
    return true;
  }

  /** The restriction to follow next, whose change no longer asks for a restart. */
  Restriction take() {
    synchronized (progress) {
      restart = false;
      return new Restriction(ranges, generation);
    }
  }

  /** Whether the ranges changed since the last {@link #take}, so the watch must start over. */
  boolean restart() {
    return restart;
  }

  boolean closed() {
    return closed;
  }

  /** The store holds the ranges of restriction {@code gen}; the first time, it is primed. */
  void holding(long gen) {
    synchronized (progress) {
      listedGeneration = gen;
      progress.notifyAll();
    }
    primed.countDown();
  }

  /** The informer's thread follows {@code watch} for the restriction {@code gen}. */
  void following(Watch watch, long gen) {
    synchronized (progress) {
      current = watch;
      currentGeneration = gen;
    }
  }

  /** The informer's thread followed its watch to its end. */
  void followed() {
    current = null;
  }

  /** Waits, holding nothing, until another restriction or closing; returns when interrupted. */
  void awaitRestriction() {
    synchronized (progress) {
      while (!restart && !closed) {
        try {
          progress.wait();
        } catch (InterruptedException e) {
          return;
        }
      }
    }
  }

  /** Closes: the watch followed ends, and every waiter wakes. */
  void close() {
    closed = true;
    Watch watch = current;
    if (watch != null) {
      watch.close();
    }
    synchronized (progress) {
      progress.notifyAll();
    }
  }
}
