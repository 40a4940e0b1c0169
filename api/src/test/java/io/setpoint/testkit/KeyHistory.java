package io.setpoint.testkit;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * A concurrent history of one key of a key-value store, and a linearizability check of it: the
 * Wing and Gong search with Lowe's memoisation of (linearized set, state) pairs, as in Knossos and
 * Porcupine. Keys are independent, so a store's history is checked one key at a time.
 *
 * <p>The key holds a value or nothing. Operations: reads, blind puts, compare-and-swaps (from an
 * expected value, or from absent: a create-only write) and unconditional deletes. Values written
 * must be unique, so that a value names the version that holds it and a CAS on a version is a CAS
 * on a value. An operation whose outcome is unknown (it timed out, or its member went away) may
 * have taken effect at any time after it was called, or never: it has no return event and need not
 * be linearized at all.
 *
 * <p>Recording is thread-safe; times are {@link System#nanoTime()} readings of one JVM.
 *
 * <p>Test support (the {@code api} test-jar): the chaos suite of {@code setpoint bench chaos} and
 * the Raft failover tests record their histories in it.
 */
public final class KeyHistory {
  /** What an operation did. */
  public enum Kind {
    /** A read, which returned {@link Op#value()} (null: absent). */
    READ,
    /** A blind write of {@link Op#value()}. */
    PUT,
    /** A write of {@link Op#value()} only if the key held {@link Op#expected()} (null: only if absent). */
    CAS,
    /** An unconditional delete (deleting an absent key succeeds). */
    DELETE
  }

  /** What an operation reported. */
  public enum Result {
    /** A read, which returned {@link Op#value()}. */
    READ,
    /** A write or delete that took effect. */
    OK,
    /** A write or delete that surely did not (a CAS refused because the key held another value). */
    FAILED,
    /** A write or delete whose fate is unknown. */
    UNKNOWN
  }

  /** The verdict of a search. */
  public enum Verdict {
    /** Some order consistent with real time is a legal run of the register. */
    LINEARIZABLE,
    /** No such order exists. */
    NOT_LINEARIZABLE,
    /** The search gave up after its budget of steps. */
    UNDECIDED
  }

  /**
   * One operation: called at {@code call} and returned at {@code ret} ({@link Long#MAX_VALUE}
   * when its outcome is unknown). For a CAS, {@code expected} is the value it required (null:
   * absent); {@code value} is what a write wrote or a read returned.
   */
  public record Op(int id, long call, long ret, Kind kind, Result result, String expected, String value) {}

  /** Steps {@link #isLinearizable()} allows itself: a few seconds of search at most. */
  public static final long DEFAULT_BUDGET = 20_000_000;

  private final List<Op> ops = new ArrayList<>();

  /** Records a read that returned {@code value} (null: absent). */
  public void read(long call, long ret, String value) {
    add(call, ret, Kind.READ, Result.READ, null, value);
  }

  /** Records a CAS from {@code expected} (null: a create-only write) to {@code value}. */
  public void cas(long call, long ret, Result result, String expected, String value) {
    add(call, ret, Kind.CAS, result, expected, value);
  }

  /** Records a blind write of {@code value}. */
  public void put(long call, long ret, Result result, String value) {
    add(call, ret, Kind.PUT, result, null, Objects.requireNonNull(value, "value"));
  }

  /** Records an unconditional delete. */
  public void delete(long call, long ret, Result result) {
    add(call, ret, Kind.DELETE, result, null, null);
  }

  private synchronized void add(long call, long ret, Kind kind, Result result, String expected, String value) {
    if ((kind == Kind.READ) != (result == Result.READ)) {
      throw new IllegalArgumentException(kind + " cannot have the result " + result);
    }
    ops.add(new Op(ops.size(), call, result == Result.UNKNOWN ? Long.MAX_VALUE : ret, kind, result, expected, value));
  }

  /** The operations recorded so far, in the order they were recorded. */
  public synchronized List<Op> ops() {
    return List.copyOf(ops);
  }

  /** True when the search within {@link #DEFAULT_BUDGET} steps finds the history linearizable. */
  public boolean isLinearizable() {
    return check(DEFAULT_BUDGET) == Verdict.LINEARIZABLE;
  }

  /** A marker state: the operation cannot apply to the state it was offered. */
  private static final String INVALID = new String("<invalid>");

  /** The state after applying {@code op} to {@code state} (null: absent), or {@code INVALID}. */
  private static String step(String state, Op op) {
    if (op.result() == Result.FAILED) {
      // A refused CAS says the key did not hold what it expected; other failures changed nothing.
      return op.kind() == Kind.CAS && Objects.equals(state, op.expected()) ? INVALID : state;
    }
    return switch (op.kind()) {
      case READ -> Objects.equals(state, op.value()) ? state : INVALID;
      case PUT -> op.value();
      case CAS -> Objects.equals(state, op.expected()) ? op.value() : INVALID;
      case DELETE -> null;
    };
  }

  /** An event in the time-ordered list the search walks and unlinks from. */
  private static final class Event {
    final Op op;
    final boolean call;
    Event match;
    Event prev;
    Event next;

    Event(Op op, boolean call) {
      this.op = op;
      this.call = call;
    }

    void lift() {
      prev.next = next;
      if (next != null) {
        next.prev = prev;
      }
      if (match != null) {
        match.prev.next = match.next;
        if (match.next != null) {
          match.next.prev = match.prev;
        }
      }
    }

    void unlift() {
      if (match != null) {
        match.prev.next = match;
        if (match.next != null) {
          match.next.prev = match;
        }
      }
      prev.next = this;
      if (next != null) {
        next.prev = this;
      }
    }
  }

  private record Visited(BitSet linearized, String state) {}

  /**
   * Searches for an order of the operations, consistent with real time, that is a legal run of
   * the register starting absent, giving up after {@code budget} steps.
   */
  public Verdict check(long budget) {
    List<Op> all = ops();
    List<Event> events = new ArrayList<>();
    for (Op op : all) {
      Event call = new Event(op, true);
      events.add(call);
      if (op.ret() != Long.MAX_VALUE) {
        Event ret = new Event(op, false);
        call.match = ret;
        events.add(ret);
      }
    }
    // At equal times a call sorts before a return: the operations are taken as concurrent.
    events.sort(
        Comparator.comparingLong((Event e) -> e.call ? e.op.call() : e.op.ret())
            .thenComparing(e -> e.call ? 0 : 1));
    Event head = new Event(null, true);
    Event last = head;
    for (Event e : events) {
      last.next = e;
      e.prev = last;
      last = e;
    }
    int returnsLeft = (int) events.stream().filter(e -> !e.call).count();

    record Lifted(Event event, String stateBefore) {}
    List<Lifted> stack = new ArrayList<>();
    BitSet linearized = new BitSet();
    Set<Visited> seen = new HashSet<>();
    String state = null;
    Event entry = head.next;
    long steps = 0;
    while (returnsLeft > 0) {
      if (++steps > budget) {
        return Verdict.UNDECIDED;
      }
      if (entry == null) {
        throw new IllegalStateException("a return is left but none lies ahead: a bug in the search");
      }
      if (entry.call) {
        String next = step(state, entry.op);
        boolean fresh = false;
        if (next != INVALID) {
          BitSet with = (BitSet) linearized.clone();
          with.set(entry.op.id());
          fresh = seen.add(new Visited(with, next));
        }
        if (fresh) {
          stack.add(new Lifted(entry, state));
          state = next;
          linearized.set(entry.op.id());
          if (entry.match != null) {
            returnsLeft--;
          }
          entry.lift();
          entry = head.next;
        } else {
          entry = entry.next;
        }
      } else {
        // An operation returned before any order could place it: undo the latest choice.
        if (stack.isEmpty()) {
          return Verdict.NOT_LINEARIZABLE;
        }
        Lifted undo = stack.removeLast();
        state = undo.stateBefore();
        linearized.clear(undo.event().op.id());
        if (undo.event().match != null) {
          returnsLeft++;
        }
        undo.event().unlift();
        entry = undo.event().next;
      }
    }
    return Verdict.LINEARIZABLE;
  }
}
