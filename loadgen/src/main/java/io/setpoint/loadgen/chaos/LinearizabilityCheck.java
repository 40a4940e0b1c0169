package io.setpoint.loadgen.chaos;

import io.setpoint.loadgen.chaos.Operation.Kind;
import io.setpoint.loadgen.chaos.Operation.Outcome;
import io.setpoint.testkit.KeyHistory;
import io.setpoint.testkit.KeyHistory.Result;
import io.setpoint.testkit.KeyHistory.Verdict;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Check 1: every key's history of consistent reads, writes and deletes is linearizable
 * ({@link KeyHistory}), ending with the consistent listing after the run; default reads only
 * ever returned values some client wrote; and no write refused for sure was ever seen.
 *
 * <p>A write whose outcome the client never learnt is resolved the way etcd's robustness tests do:
 * its value is unique, so if any watcher or read saw the value, the write took effect before it was
 * first seen (it is checked as acknowledged then); if nothing ever saw it, it is taken not to have
 * happened (dropped). Deletes of unknown outcome stay open: either may be true.
 */
final class LinearizabilityCheck {
  /** Search steps per key; a key over it is reported as undecided, which fails the check. */
  static final long BUDGET = 5_000_000;

  private LinearizabilityCheck() {}

  static Check run(List<Operation> ops, List<Watcher.Event> events, FinalState last) {
    Map<String, Long> firstSeen = new HashMap<>();
    for (Watcher.Event event : events) {
      if (event.value() != null) {
        firstSeen.merge(event.value(), event.received(), Math::min);
      }
    }
    Set<String> written = new HashSet<>();
    for (Operation op : ops) {
      if (op.kind().writes() && op.value() != null) {
        written.add(op.value());
      } else if (!op.kind().writes() && op.outcome() == Outcome.OK && op.value() != null) {
        firstSeen.merge(op.value(), op.ret(), Math::min);
      }
    }
    int reference = last.reference();
    Map<String, String> lastValues = reference < 0 ? null : last.values().get(reference);
    long listCall = reference < 0 ? 0 : last.calls().get(reference);
    long listRet = reference < 0 ? 0 : last.rets().get(reference);
    if (lastValues != null) {
      lastValues.values().forEach(v -> firstSeen.merge(v, listRet, Math::min));
    }

    Map<String, KeyHistory> histories = new TreeMap<>();
    int resolved = 0;
    int dropped = 0;
    int open = 0;
    long invented = 0;
    String inventedExample = "";
    for (Operation op : ops) {
      KeyHistory h = histories.computeIfAbsent(op.key(), k -> new KeyHistory());
      if (op.kind() == Kind.READ) {
        if (op.outcome() == Outcome.OK && op.value() != null && !written.contains(op.value())) {
          invented++;
          inventedExample = op.key() + " read " + op.value() + " from " + Members.name(op.member());
        }
        continue;
      }
      if (op.outcome() == Outcome.REJECTED || (op.kind() == Kind.STRONG_READ && op.outcome() != Outcome.OK)) {
        continue; // no effect, and nothing learnt about the key
      }
      if (op.outcome() == Outcome.UNKNOWN && op.kind() != Kind.DELETE) {
        Long seen = firstSeen.get(op.value());
        if (seen == null) {
          dropped++;
          continue;
        }
        resolved++;
        record(h, op, Result.OK, Math.max(seen, op.call()));
        continue;
      }
      if (op.outcome() == Outcome.UNKNOWN) {
        open++;
      }
      record(h, op, switch (op.outcome()) {
        case OK -> op.kind() == Kind.STRONG_READ ? Result.READ : Result.OK;
        case FAILED -> Result.FAILED;
        case UNKNOWN, REJECTED -> Result.UNKNOWN;
      }, op.ret());
    }
    if (lastValues != null) {
      for (Map.Entry<String, KeyHistory> key : histories.entrySet()) {
        key.getValue().read(listCall, listRet, lastValues.get(key.getKey()));
      }
    }

    // A write refused for sure must never show up, in a read or in a watch.
    long refusedSeen = 0;
    String refusedExample = "";
    for (Operation op : ops) {
      boolean refused = op.outcome() == Outcome.FAILED || op.outcome() == Outcome.REJECTED;
      if (refused && op.kind().writes() && op.value() != null && firstSeen.containsKey(op.value())) {
        refusedSeen++;
        refusedExample = op.key() + "=" + op.value() + " (" + op.code() + ")";
      }
    }

    List<String> bad = new ArrayList<>();
    long checked = 0;
    for (Map.Entry<String, KeyHistory> key : histories.entrySet()) {
      checked += key.getValue().ops().size();
      Verdict verdict = key.getValue().check(BUDGET);
      if (verdict != Verdict.LINEARIZABLE) {
        bad.add(key.getKey() + " " + verdict.name().toLowerCase(Locale.ROOT).replace('_', ' '));
      }
    }
    String detail = String.format(Locale.ROOT,
        "%d keys, %,d operations checked (unknown outcomes: %d seen later so taken as done, %d never seen so dropped,"
            + " %d deletes left open)%s; %d default reads of values no client wrote%s; %d refused writes seen later%s",
        histories.size(), checked, resolved, dropped, open,
        lastValues == null ? ", no final listing (see convergence)" : ", each ending with the final consistent listing",
        invented, inventedExample.isEmpty() ? "" : " (" + inventedExample + ")",
        refusedSeen, refusedExample.isEmpty() ? "" : " (" + refusedExample + ")");
    if (!bad.isEmpty()) {
      detail += "; not linearizable: " + String.join(", ", bad);
    }
    return new Check("linearizable", bad.isEmpty() && invented == 0 && refusedSeen == 0, detail);
  }

  private static void record(KeyHistory h, Operation op, Result result, long ret) {
    switch (op.kind()) {
      case STRONG_READ -> h.read(op.call(), ret, op.value());
      case PUT -> h.put(op.call(), ret, result, op.value());
      case CAS, CREATE -> h.cas(op.call(), ret, result, op.expected(), op.value());
      case DELETE -> h.delete(op.call(), ret, result);
      case READ -> throw new IllegalArgumentException("default reads are not linearizable");
    }
  }
}
