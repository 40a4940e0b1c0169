package io.setpoint.loadgen.chaos;

import io.setpoint.loadgen.chaos.Operation.Kind;
import io.setpoint.loadgen.chaos.Operation.Outcome;
import io.setpoint.loadgen.chaos.Watcher.Event;
import io.setpoint.loadgen.chaos.Watcher.Type;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Check 2: the watch guarantees as etcd's robustness tests state them, over what every member's
 * watcher received.
 *
 * <ul>
 *   <li>ordered: within a session, revisions strictly increase;
 *   <li>unique: no watcher receives a change (a revision) twice;
 *   <li>atomic: each revision is one change, the same on every watcher, and the one the write
 *       acknowledged with that revision wrote;
 *   <li>reliable: every acknowledged write appears in each watcher whose session covered its
 *       revision, and every watcher got to the last acknowledged revision;
 *   <li>resumable: no watcher was told to re-list (a member refused a revision it had sent).
 * </ul>
 */
final class WatchCheck {
  private WatchCheck() {}

  /** A change as watchers and writers describe it. */
  private record Change(String key, boolean delete, String value) {}

  static List<Check> run(List<Watcher.Log> watchers, List<Operation> ops) {
    List<String> unordered = new ArrayList<>();
    List<String> duplicated = new ArrayList<>();
    List<String> disagreed = new ArrayList<>();
    Map<Long, Change> byRevision = new HashMap<>();
    Map<Long, Operation> acknowledged = new HashMap<>();
    long lastAcknowledged = 0;
    for (Operation op : ops) {
      if (op.outcome() == Outcome.OK && op.kind().writes() && op.kind() != Kind.DELETE && op.revision() > 0) {
        acknowledged.put(op.revision(), op);
        byRevision.put(op.revision(), new Change(op.key(), false, op.value()));
        lastAcknowledged = Math.max(lastAcknowledged, op.revision());
      }
    }
    long changes = 0;
    long missing = 0;
    List<String> missingExamples = new ArrayList<>();
    List<String> behind = new ArrayList<>();
    for (Watcher.Log watcher : watchers) {
      String name = Members.name(watcher.member()) + "'s watcher";
      List<Event> events = watcher.events();
      Set<Long> received = new HashSet<>();
      Map<Integer, long[]> coverage = new HashMap<>(); // session -> {from, to}
      long previous = -1;
      int session = 0;
      for (Event event : events) {
        if (event.session() != session) {
          session = event.session();
          previous = -1;
        }
        if (event.type() == Type.SNAPSHOT) {
          continue;
        }
        if (event.revision() <= previous) {
          unordered.add(name + " got revision " + event.revision() + " after " + previous);
        }
        previous = event.revision();
        if (event.type() == Type.END_OF_SNAPSHOT) {
          coverage.put(session, new long[] {event.revision(), event.revision()});
          continue;
        }
        changes++;
        coverage.computeIfAbsent(session, s -> new long[] {event.revision() - 1, event.revision()})[1] = event.revision();
        if (!received.add(event.revision())) {
          duplicated.add(name + " got revision " + event.revision() + " twice");
        }
        Change change = new Change(event.key(), event.type() == Type.DELETE, event.value());
        Change other = byRevision.putIfAbsent(event.revision(), change);
        if (other != null && !sameChange(other, change)) {
          disagreed.add(name + " got " + change + " at revision " + event.revision() + ", elsewhere " + other);
        }
      }
      for (Operation write : acknowledged.values()) {
        for (long[] range : coverage.values()) {
          if (write.revision() > range[0] && write.revision() <= range[1] && !received.contains(write.revision())) {
            missing++;
            if (missingExamples.size() < 3) {
              missingExamples.add(name + " lacks " + write.key() + "=" + write.value() + " at revision " + write.revision());
            }
          }
        }
      }
      if (watcher.lastRevision() < lastAcknowledged) {
        behind.add(name + " stopped at revision " + watcher.lastRevision() + " (last error: "
            + (watcher.lastError().isEmpty() ? "none" : watcher.lastError()) + ")");
      }
    }
    int relists = watchers.stream().mapToInt(Watcher.Log::relists).sum();
    int resumes = watchers.stream().mapToInt(Watcher.Log::resumes).sum();
    List<Check> checks = new ArrayList<>();
    String over = String.format("%,d changes over %d watchers", changes, watchers.size());
    checks.add(verdict("watch-ordered", over + ", revisions increasing in every session", unordered));
    checks.add(verdict("watch-unique", over + ", no revision twice", duplicated));
    checks.add(verdict("watch-atomic", over + ", one change per revision, the same on every watcher and as acknowledged",
        disagreed));
    List<String> unreliable = new ArrayList<>(missingExamples);
    if (missing > missingExamples.size()) {
      unreliable.add((missing - missingExamples.size()) + " more acknowledged writes missing");
    }
    unreliable.addAll(behind);
    checks.add(verdict("watch-reliable", String.format("%,d acknowledged writes up to revision %d, each in every watcher"
        + " watching then, and every watcher caught up", acknowledged.size(), lastAcknowledged), unreliable));
    StringBuilder perMember = new StringBuilder();
    for (Watcher.Log watcher : watchers) {
      perMember.append(perMember.isEmpty() ? "" : ", ").append(Members.name(watcher.member())).append(' ')
          .append(watcher.relists());
    }
    checks.add(new Check("watch-resumable", relists == 0, String.format(
        "%d attempts to resume a broken stream from its last revision (members down included), %d re-lists (%s)",
        resumes, relists, perMember)));
    return checks;
  }

  private static boolean sameChange(Change a, Change b) {
    // An acknowledged write's change knows the value; a delete's value is what it removed.
    return a.key().equals(b.key()) && a.delete() == b.delete() && Objects.equals(a.value(), b.value());
  }

  private static Check verdict(String name, String what, List<String> problems) {
    if (problems.isEmpty()) {
      return new Check(name, true, what);
    }
    return new Check(name, false, what + "; " + problems.size() + " problems, first: "
        + String.join("; ", problems.subList(0, Math.min(3, problems.size()))));
  }
}
