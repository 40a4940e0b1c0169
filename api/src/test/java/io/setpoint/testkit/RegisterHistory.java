package io.setpoint.testkit;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A concurrent history of one compare-and-swap register, and a linearizability check of it: the
 * Wing and Gong search with Lowe's memoisation of (linearized set, state) pairs, as in Knossos and
 * Porcupine.
 *
 * <p>Values written must be unique, so that a value names the version that holds it and a CAS on a
 * version is a CAS on a value. An operation whose outcome is unknown (it timed out, or its member
 * went away) may have taken effect at any time after it was called, or never: it has no return
 * event and need not be linearized at all.
 */
public final class RegisterHistory {
  /** What an operation reported. */
  public enum Result {
    /** A read, which returned {@link Op#value()} (null: absent). */
    READ,
    /** A CAS that took effect. */
    OK,
    /** A CAS refused because the register did not hold the expected value. */
    FAILED,
    /** A CAS whose fate is unknown. */
    UNKNOWN
  }

  /**
   * One operation: called at {@code call} and returned at {@code ret} (nanoTime). For a CAS,
   * {@code expected} is the value it required (null: absent) and {@code value} the one it wrote.
   */
  public record Op(int id, long call, long ret, Result result, String expected, String value) {}

  private final List<Op> ops = new ArrayList<>();
  private final AtomicInteger ids = new AtomicInteger();

  /** Records a read that returned {@code value} (null: absent). */
  public synchronized void read(long call, long ret, String value) {
    ops.add(new Op(ids.getAndIncrement(), call, ret, Result.READ, null, value));
  }

  /** Records a CAS from {@code expected} to {@code value}. */
  public synchronized void cas(long call, long ret, Result result, String expected, String value) {
    ops.add(new Op(ids.getAndIncrement(), call, result == Result.UNKNOWN ? Long.MAX_VALUE : ret, result, expected, value));
  }

  public synchronized List<Op> ops() {
    return List.copyOf(ops);
  }

  /** The state after applying {@code op} to {@code state}, or {@code INVALID} if it cannot apply. */
  private static final String INVALID = new String("<invalid>");

  private static String step(String state, Op op) {
    boolean holdsExpected = Objects.equals(state, op.expected());
    return switch (op.result()) {
      case READ -> Objects.equals(state, op.value()) ? state : INVALID;
      case OK, UNKNOWN -> holdsExpected ? op.value() : INVALID;
      case FAILED -> holdsExpected ? INVALID : state;
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

  /** True when some order of the operations, consistent with real time, is a legal register run. */
  public boolean isLinearizable() {
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
    while (returnsLeft > 0) {
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
          return false;
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
    return true;
  }
}
