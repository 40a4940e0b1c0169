package io.setpoint.loadgen.chaos;

import java.util.List;
import java.util.Map;

/**
 * What each member held after the run, listed with a consistent read.
 *
 * @param values per member, key to value; null where the member could not list (see {@code errors})
 * @param calls per member, when its listing was sent ({@link System#nanoTime()})
 * @param rets per member, when it was answered
 * @param errors per member, why it could not list, or empty
 */
record FinalState(List<Map<String, String>> values, List<Long> calls, List<Long> rets, List<String> errors) {
  /** The first member that listed, or -1. */
  int reference() {
    for (int i = 0; i < values.size(); i++) {
      if (values.get(i) != null) {
        return i;
      }
    }
    return -1;
  }
}
