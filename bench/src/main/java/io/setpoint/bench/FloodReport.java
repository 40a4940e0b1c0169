package io.setpoint.bench;

import io.setpoint.loadgen.Latencies;
import io.setpoint.loadgen.Result;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * What {@code bench flood} prints once its phases ran: token B's reads idle and under token A's
 * flood, the CPU each process took, the flood's refusals and the stuck watchers' phase.
 *
 * @param phase how long each read phase lasted
 * @param agentOurs whether the agent is this benchmark's (its heap was collected before each reading)
 */
record FloodReport(String cpus, int machineCpus, Duration phase, int floodClients, int payloadKib, boolean agentOurs,
    Duration sampleEvery) {
  /** The measured phases, for the report. */
  record Outcome(FloodHttp.Reads idle, PhaseCpu idleCpu, FloodHttp.Reads flooded, PhaseCpu floodCpu,
      FloodHttp.Flooded flood, Watchers watchers) {}

  /** What the stuck watchers phase saw. */
  record Watchers(int opened, long writes, long failedWrites, Duration cutOffAfter, int stillOpen,
      Duration watched, AgentGauges before, long heapPeak, AgentGauges end, AgentGauges after, List<String> seen) {}

  /** Prints what the run against {@code agent} measured. */
  void print(PrintWriter out, Outcome o, String agent) {
    long[] idle = o.idle().latencies().sorted();
    long[] flooded = o.flooded().latencies().sorted();
    long idleP99 = Latencies.percentile(idle, 99);
    long floodP99 = Latencies.percentile(flooded, 99);
    out.println();
    out.println("agent: " + agent);
    out.printf(Locale.ROOT, "%-34s  %12s  %12s%n", "token B, GET one Artist", "idle", "under flood");
    out.printf(Locale.ROOT, "%-34s  %,12d  %,12d%n", "reads answered 200", o.idle().served(), o.flooded().served());
    out.printf(Locale.ROOT, "%-34s  %12s  %12s%n", "p50", Result.millis(Latencies.percentile(idle, 50)),
        Result.millis(Latencies.percentile(flooded, 50)));
    out.printf(Locale.ROOT, "%-34s  %12s  %12s%n", "p99", Result.millis(idleP99), Result.millis(floodP99));
    out.printf(Locale.ROOT, "%-34s  %12s  %12s%n", "max", Result.millis(Latencies.percentile(idle, 100)),
        Result.millis(Latencies.percentile(flooded, 100)));
    out.printf(Locale.ROOT, "%-34s  %,12d  %,12d%n", "refused (429)", o.idle().refused(), o.flooded().refused());
    out.printf(Locale.ROOT, "%-34s  %,12d  %,12d%s%n", "failed otherwise", o.idle().failed(), o.flooded().failed(),
        firstFailure(o));
    out.printf(Locale.ROOT, "B's p99 under flood / idle: %.2fx (target: at most 2x)%n",
        idleP99 == 0 ? Double.NaN : (double) floodP99 / idleP99);
    out.println("CPUs: " + cpus);
    out.printf(Locale.ROOT, "CPU over the phase, of %d cores: idle %s; under flood %s%n",
        machineCpus, o.idleCpu().describe(phase),
        o.floodCpu().describe(phase));
    FloodHttp.Flooded f = o.flood();
    out.printf(Locale.ROOT, "token A, %d at once from its own process: %,d requests in %s (%,.0f/s offered): "
            + "%,d refused 429 (%,d with Retry-After), %,d served, %,d other%s%n",
        floodClients, f.requests(), Bench.seconds(f.sending()), f.offeredPerSecond(),
        f.refused(), f.refusedWithRetryAfter(), f.served(), f.other(),
        f.firstOther() == null ? "" : " (first: " + f.firstOther() + ")");
    out.printf(Locale.ROOT, "every 429 carried Retry-After: %s%n",
        f.refused() > 0 && f.refused() == f.refusedWithRetryAfter() ? "yes" : f.refused() == 0 ? "no 429 at all" : "no");
    Watchers w = o.watchers();
    out.printf(Locale.ROOT, "watchers that never read: %d (%d gRPC, %d HTTP); %,d Artists of %d KiB written over %s, "
            + "%,d writes failed%n",
        w.opened(), StuckWatchers.grpcCount(w.opened()), w.opened() - StuckWatchers.grpcCount(w.opened()),
        w.writes(), payloadKib, Bench.seconds(w.watched()), w.failedWrites());
    out.printf(Locale.ROOT, "cut off while not reading: %s%n", w.cutOffAfter() != null
        ? String.format(Locale.ROOT, "yes, all %d within %s of the first write", w.opened(), Bench.seconds(w.cutOffAfter()))
        : String.format(Locale.ROOT, "no, %d of %d still open after %s", w.stillOpen(), w.opened(), Bench.seconds(w.watched())));
    for (String seen : w.seen()) {
      out.println("  once read again: " + seen);
    }
    out.printf(Locale.ROOT, "agent heap %s: before %s, at the end of the writes %s, after the watches closed %s; "
            + "at most %s used (read every %d ms); max heap %s%n",
        agentOurs ? "live (after a full GC)" : "used (no GC forced: the agent is not this benchmark's)",
        mib(w.before().heapUsed()), mib(w.end().heapUsed()), mib(w.after().heapUsed()), mib(w.heapPeak()),
        sampleEvery.toMillis(), mib(w.before().heapMax()));
    out.printf(Locale.ROOT, "load average at end: %s%n", Bench.loadAverage());
    out.flush();
  }

  private static String firstFailure(Outcome o) {
    String first = o.idle().firstFailure() != null ? o.idle().firstFailure() : o.flooded().firstFailure();
    return first == null ? "" : " (first: " + first + ")";
  }

  static String summary(FloodHttp.Reads reads) {
    long[] sorted = reads.latencies().sorted();
    return String.format(Locale.ROOT, "%,d reads, p50 %s, p99 %s, max %s, %d refused, %d failed", reads.served(),
        Result.millis(Latencies.percentile(sorted, 50)), Result.millis(Latencies.percentile(sorted, 99)),
        Result.millis(Latencies.percentile(sorted, 100)), reads.refused(), reads.failed());
  }

  private static String mib(long bytes) {
    return String.format(Locale.ROOT, "%.0f MiB", bytes / (1024.0 * 1024.0));
  }
}
