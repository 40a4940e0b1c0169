package io.setpoint.loadgen.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import io.setpoint.loadgen.chaos.Operation.Kind;
import io.setpoint.loadgen.chaos.Operation.Outcome;
import io.setpoint.loadgen.chaos.Watcher.Event;
import io.setpoint.loadgen.chaos.Watcher.Type;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The suite's checks over crafted histories: they pass what holds and fail, with a reason, what does not. */
class ChecksTest {
  private static Operation op(Kind kind, Outcome outcome, long call, long ret, String expected, String value, long revision) {
    String code = switch (outcome) {
      case OK -> "OK";
      case FAILED -> kind == Kind.CREATE ? "ALREADY_EXISTS" : "ABORTED";
      case REJECTED -> "RESOURCE_EXHAUSTED";
      case UNKNOWN -> "DEADLINE_EXCEEDED";
    };
    return new Operation(0, 0, "chaos-s0", kind, outcome, call, ret, expected, value, revision, code);
  }

  private static FinalState listed(Map<String, String> values, long call, long ret) {
    return new FinalState(List.of(values), List.of(call), List.of(ret), List.of(""));
  }

  private static Event change(int member, long revision, String value, long received) {
    return new Event(member, 1, value == null ? Type.DELETE : Type.UPSERT, "chaos-s0", value, revision, received);
  }

  private static Event listedAt(int member, long revision) {
    return new Event(member, 1, Type.END_OF_SNAPSHOT, "", null, revision, 0);
  }

  private static Watcher.Log log(int member, int relists, Event... events) {
    long last = Arrays.stream(events).filter(e -> e.type() != Type.SNAPSHOT).mapToLong(Event::revision).max().orElse(0);
    return new Watcher.Log(member, List.of(events), last, relists, 0, "");
  }

  @Test
  void aHistoryThatFollowsTheRegisterIsLinearizableAndEndsWithTheListing() {
    List<Operation> ops = List.of(
        op(Kind.CREATE, Outcome.OK, 0, 10, null, "a", 5),
        op(Kind.CAS, Outcome.OK, 20, 30, "a", "b", 6),
        op(Kind.CAS, Outcome.FAILED, 40, 50, "a", "c", 0),
        op(Kind.STRONG_READ, Outcome.OK, 60, 70, null, "b", 6),
        op(Kind.READ, Outcome.OK, 80, 90, null, "a", 5));
    Check check = LinearizabilityCheck.run(ops, List.of(), listed(Map.of("chaos-s0", "b"), 100, 110));

    assertThat(check.passed()).as(check.toString()).isTrue();
    assertThat(check.detail()).contains("1 keys, 5 operations checked", "ending with the final consistent listing");
  }

  @Test
  void aConsistentReadOfAnOverwrittenValueIsNot() {
    List<Operation> ops = List.of(
        op(Kind.PUT, Outcome.OK, 0, 10, null, "a", 5),
        op(Kind.PUT, Outcome.OK, 20, 30, null, "b", 6),
        op(Kind.STRONG_READ, Outcome.OK, 40, 50, null, "a", 5));
    Check check = LinearizabilityCheck.run(ops, List.of(), listed(Map.of("chaos-s0", "b"), 100, 110));

    assertThat(check.passed()).isFalse();
    assertThat(check.detail()).contains("not linearizable: chaos-s0 not linearizable");
  }

  @Test
  void aFinalListingThatLostAnAcknowledgedWriteIsNot() {
    List<Operation> ops = List.of(op(Kind.PUT, Outcome.OK, 0, 10, null, "a", 5));
    Check check = LinearizabilityCheck.run(ops, List.of(), listed(Map.of(), 100, 110));

    assertThat(check.passed()).isFalse();
  }

  @Test
  void anUnknownWriteSeenByAWatcherTookEffectBeforeItWasSeenAndOneNeverSeenIsDropped() {
    List<Operation> ops = List.of(
        op(Kind.PUT, Outcome.OK, 0, 10, null, "a", 5),
        op(Kind.PUT, Outcome.UNKNOWN, 20, 2000, null, "b", 0),
        op(Kind.PUT, Outcome.UNKNOWN, 25, 2000, null, "lost", 0),
        // Had "b" not been taken as done by 60, when the watcher saw it, this read would be legal.
        op(Kind.STRONG_READ, Outcome.OK, 70, 80, null, "b", 6));
    List<Event> events = List.of(change(0, 5, "a", 15), change(0, 6, "b", 60));
    Check check = LinearizabilityCheck.run(ops, events, listed(Map.of("chaos-s0", "b"), 100, 110));

    assertThat(check.passed()).as(check.toString()).isTrue();
    assertThat(check.detail()).contains("1 seen later so taken as done, 1 never seen so dropped");

    List<Operation> staleAfterSeen = new ArrayList<>(ops);
    staleAfterSeen.set(3, op(Kind.STRONG_READ, Outcome.OK, 70, 80, null, "a", 5));
    assertThat(LinearizabilityCheck.run(staleAfterSeen, events, listed(Map.of("chaos-s0", "b"), 100, 110)).passed())
        .as("once a watcher saw b, a consistent read of a is stale").isFalse();
  }

  @Test
  void aDefaultReadOfAValueNoClientWroteFails() {
    List<Operation> ops = List.of(
        op(Kind.PUT, Outcome.OK, 0, 10, null, "a", 5),
        op(Kind.READ, Outcome.OK, 20, 30, null, "phantom", 5));
    Check check = LinearizabilityCheck.run(ops, List.of(), listed(Map.of("chaos-s0", "a"), 100, 110));

    assertThat(check.passed()).isFalse();
    assertThat(check.detail()).contains("1 default reads of values no client wrote (chaos-s0 read phantom from n1)");
  }

  @Test
  void aRefusedWriteThatAWatcherSawFails() {
    List<Operation> ops = List.of(
        op(Kind.CREATE, Outcome.OK, 0, 10, null, "a", 5),
        op(Kind.CAS, Outcome.FAILED, 20, 30, "x", "b", 0));
    List<Event> events = List.of(change(0, 5, "a", 11), change(0, 6, "b", 31));
    Check check = LinearizabilityCheck.run(ops, events, listed(Map.of("chaos-s0", "a"), 100, 110));

    assertThat(check.passed()).isFalse();
    assertThat(check.detail()).contains("1 refused writes seen later (chaos-s0=b (ABORTED))");
  }

  @Test
  void watchersThatGotEveryAcknowledgedWriteInOrderPassEveryWatchCheck() {
    List<Operation> ops = List.of(op(Kind.PUT, Outcome.OK, 0, 10, null, "a", 5), op(Kind.PUT, Outcome.OK, 20, 30, null, "b", 7));
    List<Watcher.Log> logs = List.of(
        log(0, 0, listedAt(0, 4), change(0, 5, "a", 11), change(0, 6, null, 15), change(0, 7, "b", 31)),
        log(1, 0, listedAt(1, 4), change(1, 5, "a", 12), change(1, 6, null, 16), change(1, 7, "b", 32)));

    List<Check> checks = WatchCheck.run(logs, ops);

    assertThat(checks).extracting(Check::name)
        .containsExactly("watch-ordered", "watch-unique", "watch-atomic", "watch-reliable", "watch-resumable");
    assertThat(checks).allSatisfy(c -> assertThat(c.passed()).as(c.toString()).isTrue());
  }

  @Test
  void eachWatchGuaranteeFailsWithItsReason() {
    List<Operation> ops = List.of(op(Kind.PUT, Outcome.OK, 0, 10, null, "a", 5), op(Kind.PUT, Outcome.OK, 20, 30, null, "b", 7));
    List<Watcher.Log> logs = List.of(
        // Out of order and twice.
        log(0, 0, listedAt(0, 4), change(0, 7, "b", 31), change(0, 5, "a", 32), change(0, 7, "b", 33)),
        // Another value at revision 5, and revision 7 missed within its session; told to re-list once.
        log(1, 1, listedAt(1, 4), change(1, 5, "x", 12), change(1, 8, null, 40)),
        // Never got past revision 5.
        log(2, 0, listedAt(2, 4), change(2, 5, "a", 12)));

    Map<String, Check> checks = new HashMap<>();
    WatchCheck.run(logs, ops).forEach(c -> checks.put(c.name(), c));

    assertThat(checks.get("watch-ordered").passed()).isFalse();
    assertThat(checks.get("watch-ordered").detail()).contains("n1's watcher got revision 5 after 7");
    assertThat(checks.get("watch-unique").detail()).contains("n1's watcher got revision 7 twice");
    assertThat(checks.get("watch-atomic").detail()).contains("n2's watcher got", "at revision 5");
    assertThat(checks.get("watch-reliable").detail())
        .contains("n2's watcher lacks chaos-s0=b at revision 7", "n3's watcher stopped at revision 5");
    assertThat(checks.get("watch-resumable").passed()).isFalse();
    assertThat(checks.get("watch-resumable").detail()).contains("1 re-lists (n1 0, n2 1, n3 0)");
  }

  @Test
  void membersThatListAlikeAndWatchersThatReplayToTheirListingConverge() {
    Map<String, String> values = Map.of("chaos-s0", "b");
    FinalState last = new FinalState(List.of(values, values), List.of(1L, 1L), List.of(2L, 2L), List.of("", ""));
    List<Watcher.Log> logs = List.of(
        log(0, 0, new Event(0, 1, Type.SNAPSHOT, "chaos-s0", "a", 3, 0), listedAt(0, 4), change(0, 5, "b", 10)),
        log(1, 0, listedAt(1, 4), change(1, 5, "b", 10)));

    assertThat(ConvergenceCheck.run(last, logs).passed()).isTrue();

    List<Map<String, String>> apart = new ArrayList<>(List.of(values, Map.of("chaos-s0", "a")));
    Check diverged = ConvergenceCheck.run(new FinalState(apart, List.of(1L, 1L), List.of(2L, 2L), List.of("", "")), logs);
    assertThat(diverged.passed()).isFalse();
    assertThat(diverged.detail()).contains("n2 differs from n1: 1 keys (chaos-s0 b vs a)",
        "n2's watcher replays to other values than it lists");
  }

  @Test
  void livenessCountsOnlyCalmRequestsAndWantsEveryMemberFlowingSoonAfterEachHeal() {
    long s = 1_000_000_000L;
    // Calm from 0 to 10 s, the fault from 10 to 20 s, healed at 20 s, calm again from 25 s to 40 s.
    Phase phase = new Phase(1, Fault.KILL_LEADER, "n1", 0, 10 * s, 20 * s, 40 * s, List.of(s, 2 * s), "");
    List<Operation> ops = List.of(
        op(Kind.PUT, Outcome.OK, s, s + s / 10, null, "a", 5),
        // In the fault window, and just after the heal: not held to the calm bound.
        op(Kind.PUT, Outcome.UNKNOWN, 12 * s, 14 * s, null, "b", 0),
        op(Kind.PUT, Outcome.OK, 21 * s, 23 * s, null, "c", 6));

    Map<String, Check> calm = new HashMap<>();
    Liveness.run(List.of(phase), ops).forEach(c -> calm.put(c.name(), c));
    assertThat(calm.get("liveness-calm").passed()).as(calm.get("liveness-calm").toString()).isTrue();
    assertThat(calm.get("liveness-heal").passed()).isTrue();

    List<Operation> slow = new ArrayList<>(ops);
    slow.add(op(Kind.STRONG_READ, Outcome.OK, 30 * s, 32 * s, null, "c", 6));
    slow.add(op(Kind.STRONG_READ, Outcome.UNKNOWN, 2 * s, 4 * s, null, null, 0));
    Phase stalled = new Phase(1, Fault.KILL_LEADER, "n1", 0, 10 * s, 20 * s, 40 * s, List.of(s, 8 * s, -1L), "");
    Map<String, Check> late = new HashMap<>();
    Liveness.run(List.of(stalled), slow).forEach(c -> late.put(c.name(), c));
    assertThat(late.get("liveness-calm").detail()).contains("3 requests outside fault windows, 2 not answered within 1 s",
        "DEADLINE_EXCEEDED=1", "answered late=1",
        "first: phase 1 strong read through n1 at 2.0 s DEADLINE_EXCEEDED, phase 1 strong read through n1 at 30.0 s in 2000.0 ms");
    assertThat(late.get("liveness-heal").detail()).contains("phase 1 n2 after 8.00 s", "phase 1 n3 never");
    assertThat(Liveness.byKind(slow)).isEqualTo("strong read 1/2, read 0/0, put 2/3, cas 0/0, create 0/0, delete 0/0");
    assertThat(Liveness.figures(stalled, slow)).startsWith("phase 1 kill -9 of the leader (n1): 40.0 s (fault 10.0 s), 5 operations, 3 answered");
  }
}
