package io.setpoint.bench;

import io.setpoint.loadgen.Result;
import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;

/** {@code bench writes}' comparisons: Setpoint's rows over etcd's, and each system's first window over its warm one. */
final class WritesComparison {
  private WritesComparison() {}

  /** Which window a row measured. */
  enum Phase {
    /** From the first write after the servers started, no warm-up. */
    FIRST,
    /** After the warm-up. */
    WARM;

    String label() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  record Row(String label, Phase phase, Result result, String onLeader) {}

  /** Server user CPU per write (total less system); NaN when either is unknown. */
  private static double userMicros(Result r) {
    return r.serverCpuMicrosPerWrite() - r.serverSystemCpuMicrosPerWrite();
  }

  /** The ratios of each Setpoint row to etcd's for the same cluster and operation, then the warm-up table. */
  static void print(PrintWriter out, List<Row> rows, String setpointLabel, String etcdLabel) {
    boolean header = false;
    for (Row s : rows) {
      if (!s.label().equals(setpointLabel)) {
        continue;
      }
      for (Row e : rows) {
        if (e.label().equals(etcdLabel) && e.phase() == s.phase() && sameLine(e, s)) {
          if (!header) {
            out.println();
            out.println("setpoint / etcd (writes/s: above 1 is Setpoint faster; latency and CPU per write: above 1 is Setpoint slower or costlier):");
            header = true;
          }
          Result a = s.result();
          Result b = e.result();
          out.printf(Locale.ROOT, "  %d node%s %-3s %-5s  writes/s %.2fx  p50 %.2fx  p99 %.2fx  max %.2fx  server CPU/write %.2fx"
                  + " (user %.2fx, system %.2fx)%n",
              a.nodes(), a.nodes() == 1 ? " " : "s", a.op().label(), s.phase().label(),
              ratio(a.writesPerSecond(), b.writesPerSecond()), ratio(a.p50(), b.p50()), ratio(a.p99(), b.p99()),
              ratio(a.max(), b.max()), ratio(a.serverCpuMicrosPerWrite(), b.serverCpuMicrosPerWrite()),
              ratio(userMicros(a), userMicros(b)), ratio(a.serverSystemCpuMicrosPerWrite(), b.serverSystemCpuMicrosPerWrite()));
        }
      }
    }
    printWarmUp(out, rows);
  }

  /** Each system's first window against its warm one, same nodes and operation. */
  private static void printWarmUp(PrintWriter out, List<Row> rows) {
    boolean header = false;
    for (Row f : rows) {
      if (f.phase() != Phase.FIRST) {
        continue;
      }
      for (Row w : rows) {
        if (w.phase() == Phase.WARM && w.label().equals(f.label()) && sameLine(w, f)) {
          if (!header) {
            out.println();
            out.println("first window / warm, writes/s (1 is no warm-up needed):");
            header = true;
          }
          out.printf(Locale.ROOT, "  %-26s %d node%s %-3s  %.2fx%n", f.label(), f.result().nodes(),
              f.result().nodes() == 1 ? " " : "s", f.result().op().label(),
              ratio(f.result().writesPerSecond(), w.result().writesPerSecond()));
        }
      }
    }
  }

  /** Whether two rows measured the same cluster size and operation. */
  private static boolean sameLine(Row a, Row b) {
    return a.result().nodes() == b.result().nodes() && a.result().op() == b.result().op();
  }

  private static double ratio(double a, double b) {
    return b == 0 ? Double.NaN : a / b;
  }
}
