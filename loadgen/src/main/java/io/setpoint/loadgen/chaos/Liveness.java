package io.setpoint.loadgen.chaos;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Check 4 and the figures per phase: outside fault windows (and the heal allowance after them)
 * every request is answered within {@link ChaosConfig#CALM_ANSWER}; within {@link
 * ChaosConfig#FLOWING_AFTER_HEAL} of each heal, writes and consistent reads flow through every
 * member again.
 */
final class Liveness {
  /** How many of the calm requests answered late the check names. */
  private static final int SLOW_NAMED = 5;

  private Liveness() {}

  /** A phase's figures: operations answered per second, p99 latency, failures by code. */
  static String figures(Phase phase, List<Operation> ops) {
    List<Long> latencies = new ArrayList<>();
    Map<String, Integer> codes = new TreeMap<>();
    int count = 0;
    for (Operation op : ops) {
      if (op.call() < phase.start() || op.call() >= phase.end()) {
        continue;
      }
      count++;
      if (op.answered()) {
        latencies.add(op.latencyNanos());
      }
      if (!op.code().equals("OK")) {
        codes.merge(op.code(), 1, Integer::sum);
      }
    }
    double seconds = (phase.end() - phase.start()) / 1e9;
    latencies.sort(null);
    String p99 = latencies.isEmpty() ? "-" : millis(latencies.get((int) Math.min(latencies.size() - 1,
        Math.ceil(latencies.size() * 0.99) - 1)));
    StringBuilder flowing = new StringBuilder();
    for (int i = 0; i < phase.flowing().size(); i++) {
      long f = phase.flowing().get(i);
      flowing.append(i == 0 ? "" : ", ").append(Members.name(i)).append(' ')
          .append(f < 0 ? "never" : String.format(Locale.ROOT, "%.2f s", f / 1e9));
    }
    return String.format(Locale.ROOT,
        "%s: %.1f s (fault %.1f s), %,d operations, %,d answered (%.1f/s), p99 %s, not OK: %s; flowing after the heal: %s%s",
        phase.title(), seconds, (phase.healedAt() - phase.faultAt()) / 1e9, count, latencies.size(), latencies.size() / seconds,
        p99, codes.isEmpty() ? "none" : codes.toString().replaceAll("[{}]", ""), flowing,
        phase.error().isEmpty() ? "" : "; fault error: " + phase.error());
  }

  /** Per kind of operation, how many were sent and how many answered OK: "put 1,200/1,250, ...". */
  static String byKind(List<Operation> ops) {
    StringBuilder line = new StringBuilder();
    for (Operation.Kind kind : Operation.Kind.values()) {
      long sent = ops.stream().filter(o -> o.kind() == kind).count();
      long ok = ops.stream().filter(o -> o.kind() == kind && o.outcome() == Operation.Outcome.OK).count();
      line.append(line.isEmpty() ? "" : ", ").append(kind.name().toLowerCase(Locale.ROOT).replace('_', ' '))
          .append(String.format(Locale.ROOT, " %,d/%,d", ok, sent));
    }
    return line.toString();
  }

  static List<Check> run(List<Phase> phases, List<Operation> ops) {
    long allowance = ChaosConfig.FLOWING_AFTER_HEAL.toNanos();
    long calmBound = ChaosConfig.CALM_ANSWER.toNanos();
    long calm = 0;
    long slow = 0;
    Map<String, Integer> slowCodes = new TreeMap<>();
    TreeMap<Long, String> firstSlow = new TreeMap<>();
    for (Operation op : ops) {
      Phase in = phases.stream().filter(p -> p.calm(op.call(), op.call() + calmBound, allowance)).findFirst().orElse(null);
      if (in == null) {
        continue;
      }
      calm++;
      if (!op.answered() || op.latencyNanos() > calmBound) {
        slow++;
        slowCodes.merge(op.answered() ? "answered late" : op.code(), 1, Integer::sum);
        firstSlow.put(op.call(), String.format(Locale.ROOT, "phase %d %s through %s at %.1f s %s", in.number(),
            op.kind().name().toLowerCase(Locale.ROOT).replace('_', ' '), Members.name(op.member()),
            (op.call() - in.start()) / 1e9, op.answered() ? "in " + millis(op.latencyNanos()) : op.code()));
        if (firstSlow.size() > SLOW_NAMED) {
          firstSlow.pollLastEntry();
        }
      }
    }
    List<String> stalled = new ArrayList<>();
    for (Phase phase : phases) {
      for (int i = 0; i < phase.flowing().size(); i++) {
        long f = phase.flowing().get(i);
        if (f < 0 || f > allowance) {
          stalled.add("phase " + phase.number() + " " + Members.name(i) + " "
              + (f < 0 ? "never" : String.format(Locale.ROOT, "after %.2f s", f / 1e9)));
        }
      }
      if (!phase.error().isEmpty()) {
        stalled.add("phase " + phase.number() + ": " + phase.error());
      }
    }
    return List.of(
        new Check("liveness-calm", slow == 0, String.format(Locale.ROOT,
            "%,d requests outside fault windows, %,d not answered within %s%s", calm, slow, seconds(ChaosConfig.CALM_ANSWER),
            slowCodes.isEmpty() ? "" : " (" + slowCodes.toString().replaceAll("[{}]", "") + "; first: "
                + String.join(", ", firstSlow.values()) + ")")),
        new Check("liveness-heal", stalled.isEmpty(), String.format(Locale.ROOT,
            "%d heals, writes and consistent reads through every member within %s of each%s", phases.size(),
            seconds(ChaosConfig.FLOWING_AFTER_HEAL), stalled.isEmpty() ? "" : "; not: " + String.join(", ", stalled))));
  }

  private static String millis(long nanos) {
    return String.format(Locale.ROOT, "%.1f ms", nanos / 1e6);
  }

  private static String seconds(Duration d) {
    return String.format(Locale.ROOT, "%.0f s", d.toMillis() / 1e3);
  }
}
