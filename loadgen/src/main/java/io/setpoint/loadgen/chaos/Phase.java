package io.setpoint.loadgen.chaos;

import java.util.List;

/**
 * What one phase did and when ({@link System#nanoTime()} readings): it started, injected its
 * fault, healed it (the last member restarted and ready, or continued), and ended.
 *
 * @param number from 1
 * @param detail which members the fault hit, e.g. "n2 (leader)"
 * @param flowing per member, nanoseconds from the heal until a write and a consistent read through
 *     it both succeeded; -1 when they did not within the bound
 * @param error why the fault could not be injected or healed, or empty
 */
record Phase(int number, Fault fault, String detail, long start, long faultAt, long healedAt, long end,
    List<Long> flowing, String error) {
  Phase {
    flowing = List.copyOf(flowing);
  }

  String title() {
    return "phase " + number + " " + fault.description() + (detail.isEmpty() ? "" : " (" + detail + ")");
  }

  /** Whether {@code [from, to]} lies in a window outside the fault and its heal allowance. */
  boolean calm(long from, long to, long allowance) {
    if (fault == Fault.NONE) {
      return from >= start && to <= end;
    }
    boolean beforeFault = from >= start && to <= faultAt;
    boolean afterHeal = from >= healedAt + allowance && to <= end;
    return beforeFault || afterHeal;
  }
}
