package io.setpoint.bench;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

/**
 * {@code bench scale}'s tables. One per system: a row per figure, and per size a column of totals
 * and one of the cost per resource, so that how the cost grows with the data reads along a row.
 * Then the ratios of Setpoint's figures to etcd's, laid out the same way. Memory and disk per
 * resource are what the data added to the empty server, divided by the resources; times per
 * resource are the whole time divided by them.
 */
final class ScaleReport {
  private static final double MIB = 1 << 20;
  private static final String LABEL = "%-30s";
  private static final String CELL = "  %12s %12s";

  private ScaleReport() {}

  /** How a figure prints. */
  private enum Unit {
    RATE("%,.0f/s"), SECONDS("%.2f s"), MICROS("%,.1f us"), MEBIBYTES("%,.1f MiB"), BYTES("%,.0f B"), COUNT("%,.0f");

    private final String format;

    Unit(String format) {
      this.format = format;
    }

    String format(double value) {
      return Double.isNaN(value) ? "" : String.format(Locale.ROOT, format, this == MEBIBYTES ? value / MIB : value);
    }
  }

  /** One row: its total and its cost per resource, each NaN where the system or the row has none. */
  private record Row(String label, Unit unit, ToDoubleFunction<ScaleResult> total, Unit perUnit,
      ToDoubleFunction<ScaleResult> perResource) {
    static Row of(String label, Unit unit, ToDoubleFunction<ScaleResult> total) {
      return new Row(label, unit, total, Unit.COUNT, r -> Double.NaN);
    }
  }

  private static final List<Row> ROWS = List.of(
      Row.of("load, writes/s", Unit.RATE, r -> r.resources() / seconds(r.load())),
      new Row("load, time", Unit.SECONDS, r -> seconds(r.load()), Unit.MICROS, r -> micros(r.load()) / r.resources()),
      Row.of("RSS, empty", Unit.MEBIBYTES, r -> r.rss().empty()),
      new Row("RSS, after the load", Unit.MEBIBYTES, r -> r.rss().loaded(), Unit.BYTES,
          r -> added(r.rss().loaded(), r.rss().empty(), r)),
      new Row("RSS, after the restart", Unit.MEBIBYTES, r -> r.rss().restarted(), Unit.BYTES,
          r -> added(r.rss().restarted(), r.rss().empty(), r)),
      Row.of("live heap, empty", Unit.MEBIBYTES, r -> r.liveHeap() == null ? Double.NaN : r.liveHeap().empty()),
      new Row("live heap, after the load", Unit.MEBIBYTES,
          r -> r.liveHeap() == null ? Double.NaN : r.liveHeap().loaded(), Unit.BYTES,
          r -> r.liveHeap() == null ? Double.NaN : added(r.liveHeap().loaded(), r.liveHeap().empty(), r)),
      new Row("live heap, after the restart", Unit.MEBIBYTES,
          r -> r.liveHeap() == null ? Double.NaN : r.liveHeap().restarted(), Unit.BYTES,
          r -> r.liveHeap() == null ? Double.NaN : added(r.liveHeap().restarted(), r.liveHeap().empty(), r)),
      Row.of("data dir, empty", Unit.MEBIBYTES, r -> r.dataDir().empty()),
      new Row("data dir, after the load", Unit.MEBIBYTES, r -> r.dataDir().loaded(), Unit.BYTES,
          r -> added(r.dataDir().loaded(), r.dataDir().empty(), r)),
      new Row("backup, time", Unit.SECONDS, r -> r.backup() == null ? Double.NaN : seconds(r.backup().took()),
          Unit.MICROS, r -> r.backup() == null ? Double.NaN : micros(r.backup().took()) / r.resources()),
      new Row("backup, file", Unit.MEBIBYTES, r -> r.backup() == null ? Double.NaN : r.backup().bytes(),
          Unit.BYTES, r -> r.backup() == null ? Double.NaN : (double) r.backup().bytes() / r.resources()),
      Row.of("backup, resources in it", Unit.COUNT,
          r -> r.backup() == null || r.backup().resources() < 0 ? Double.NaN : r.backup().resources()),
      new Row("list, time", Unit.SECONDS, r -> seconds(r.list().took()), Unit.MICROS,
          r -> micros(r.list().took()) / r.resources()),
      Row.of("list, pages", Unit.COUNT, r -> r.list().pages()),
      Row.of("list, resources", Unit.COUNT, r -> r.list().resources()),
      new Row("watch snapshot, time", Unit.SECONDS, r -> r.watch() == null ? Double.NaN : seconds(r.watch().took()),
          Unit.MICROS, r -> r.watch() == null ? Double.NaN : micros(r.watch().took()) / r.resources()),
      Row.of("watch snapshot, events", Unit.COUNT, r -> r.watch() == null ? Double.NaN : r.watch().events()),
      Row.of("watch snapshot, events/s", Unit.RATE,
          r -> r.watch() == null ? Double.NaN : r.watch().events() / seconds(r.watch().took())),
      Row.of("start to ready, empty", Unit.SECONDS, r -> seconds(r.start())),
      Row.of("stop, SIGTERM to exit", Unit.SECONDS, r -> seconds(r.stop())),
      new Row("restart to ready", Unit.SECONDS, r -> seconds(r.restart()), Unit.MICROS,
          r -> micros(r.restart()) / r.resources()));

  /** {@code results}' table: one system, a column pair per size, rows it has no figure for left out. */
  static void printSystem(PrintWriter out, String system, List<ScaleResult> results) {
    out.println();
    out.println(system + ":");
    header(out, results);
    for (Row row : ROWS) {
      if (results.stream().allMatch(r -> Double.isNaN(row.total().applyAsDouble(r)))) {
        continue;
      }
      StringBuilder line = new StringBuilder(String.format(Locale.ROOT, LABEL, row.label()));
      for (ScaleResult r : results) {
        line.append(String.format(Locale.ROOT, CELL, row.unit().format(row.total().applyAsDouble(r)),
            row.perUnit().format(row.perResource().applyAsDouble(r))));
      }
      out.println(line.toString().stripTrailing());
    }
    out.flush();
  }

  /**
   * Setpoint's figures over etcd's, size by size (pairs matched by size; sizes either system lacks
   * are left out), in the same rows and columns: totals, then per resource.
   */
  static void printComparison(PrintWriter out, List<ScaleResult> setpoint, List<ScaleResult> etcd) {
    List<ScaleResult[]> pairs = setpoint.stream()
        .flatMap(s -> etcd.stream().filter(e -> e.resources() == s.resources()).map(e -> new ScaleResult[] {s, e}))
        .toList();
    if (pairs.isEmpty()) {
      return;
    }
    out.println();
    out.println("setpoint / etcd (writes/s: above 1 is Setpoint faster; times, memory and disk: above 1 is Setpoint"
        + " slower or larger):");
    header(out, pairs.stream().map(p -> p[0]).toList());
    for (Row row : ROWS) {
      boolean any = false;
      StringBuilder cells = new StringBuilder();
      for (ScaleResult[] p : pairs) {
        double total = ratio(row.total().applyAsDouble(p[0]), row.total().applyAsDouble(p[1]));
        double per = ratio(row.perResource().applyAsDouble(p[0]), row.perResource().applyAsDouble(p[1]));
        any |= !Double.isNaN(total);
        cells.append(String.format(Locale.ROOT, CELL, times(total), times(per)));
      }
      if (any && row.unit() != Unit.COUNT) {
        out.println((String.format(Locale.ROOT, LABEL, row.label()) + cells).stripTrailing());
      }
    }
    out.flush();
  }

  private static void header(PrintWriter out, List<ScaleResult> results) {
    out.printf(Locale.ROOT, LABEL, "");
    for (ScaleResult r : results) {
      out.printf(Locale.ROOT, "  %25s", ScaleSize.label(r.resources()) + " resources");
    }
    out.println();
    out.printf(Locale.ROOT, LABEL, "");
    for (int i = 0; i < results.size(); i++) {
      out.printf(Locale.ROOT, CELL, "total", "per resource");
    }
    out.println();
  }

  /** What the data added to a figure of the empty server, per resource. */
  private static double added(long loaded, long empty, ScaleResult r) {
    return (double) (loaded - empty) / r.resources();
  }

  private static double ratio(double a, double b) {
    return Double.isNaN(a) || Double.isNaN(b) || b == 0 ? Double.NaN : a / b;
  }

  private static String times(double ratio) {
    return Double.isNaN(ratio) ? "" : String.format(Locale.ROOT, "%.2fx", ratio);
  }

  private static double seconds(Duration d) {
    return d.toNanos() / 1e9;
  }

  private static double micros(Duration d) {
    return d.toNanos() / 1e3;
  }
}
