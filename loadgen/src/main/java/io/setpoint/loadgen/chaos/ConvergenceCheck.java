package io.setpoint.loadgen.chaos;

import io.setpoint.loadgen.chaos.Watcher.Event;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Check 3: after the run every member lists (consistently) the same keys with the same values, and
 * each member's watcher, replaying what it received, arrives at what its member lists. That the
 * listing matches the histories' last states is part of the linearizability check, whose every
 * history ends with it.
 */
final class ConvergenceCheck {
  private ConvergenceCheck() {}

  static Check run(FinalState last, List<Watcher.Log> watchers) {
    List<String> problems = new ArrayList<>();
    Map<String, String> first = null;
    for (int i = 0; i < last.values().size(); i++) {
      Map<String, String> values = last.values().get(i);
      if (values == null) {
        problems.add(Members.name(i) + " could not list: " + last.errors().get(i));
        continue;
      }
      if (first == null) {
        first = values;
      } else if (!first.equals(values)) {
        problems.add(Members.name(i) + " differs from n1: " + difference(first, values));
      }
    }
    for (Watcher.Log watcher : watchers) {
      Map<String, String> listed = last.values().get(watcher.member());
      if (listed == null) {
        continue;
      }
      Map<String, String> replayed = replay(watcher.events());
      if (!replayed.equals(listed)) {
        problems.add(Members.name(watcher.member()) + "'s watcher replays to other values than it lists: "
            + difference(listed, replayed));
      }
    }
    String what = String.format("%d members, %d keys each", last.values().size(), first == null ? 0 : first.size());
    return new Check("convergence", problems.isEmpty(),
        problems.isEmpty() ? what + ", all alike, every watcher's replay alike" : what + "; " + String.join("; ", problems));
  }

  /** The state a watcher's events lead to: each session's snapshot, then its changes. */
  static Map<String, String> replay(List<Event> events) {
    Map<String, String> state = new HashMap<>();
    int session = 0;
    for (Event event : events) {
      if (event.session() != session) {
        session = event.session();
        state.clear();
      }
      switch (event.type()) {
        case SNAPSHOT, UPSERT -> state.put(event.key(), event.value());
        case DELETE -> state.remove(event.key());
        case END_OF_SNAPSHOT -> { }
      }
    }
    return state;
  }

  private static String difference(Map<String, String> a, Map<String, String> b) {
    List<String> diffs = new ArrayList<>();
    for (String key : a.keySet()) {
      if (!Objects.equals(a.get(key), b.get(key))) {
        diffs.add(key + " " + a.get(key) + " vs " + b.get(key));
      }
    }
    for (String key : b.keySet()) {
      if (!a.containsKey(key)) {
        diffs.add(key + " absent vs " + b.get(key));
      }
    }
    return diffs.size() + " keys (" + String.join(", ", diffs.subList(0, Math.min(3, diffs.size()))) + ")";
  }
}
