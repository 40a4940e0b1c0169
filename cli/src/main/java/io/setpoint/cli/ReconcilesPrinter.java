package io.setpoint.cli;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.util.Durations;
import com.google.protobuf.util.JsonFormat;
import io.setpoint.api.controller.v1.ListReconcilesResponse;
import io.setpoint.api.controller.v1.ReconcileInfo;
import io.setpoint.api.controller.v1.ReconcileTrigger;
import java.io.PrintWriter;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/** Prints reconciles ({@code controller history}, {@code why}) as a table, JSON or YAML. */
final class ReconcilesPrinter {
  private ReconcilesPrinter() {}

  static void print(PrintWriter out, Format format, List<ReconcileInfo> reconciles) {
    switch (format) {
      case table -> table(out, reconciles);
      case json -> out.println(json(reconciles));
      case yaml -> out.print(Documents.yaml(json(reconciles)));
    }
    out.flush();
  }

  private static void table(PrintWriter out, List<ReconcileInfo> reconciles) {
    Table table = new Table(List.of("STARTED", "CONTROLLER", "RESOURCE", "RESULT", "WAITED", "TOOK", "TRIGGERS", "MESSAGE"));
    for (ReconcileInfo r : reconciles) {
      table.row(new ArrayList<>(List.of(
          Instant.ofEpochSecond(r.getStarted().getSeconds(), r.getStarted().getNanos()).truncatedTo(ChronoUnit.MILLIS).toString(),
          r.getController(),
          r.getKey(),
          r.getResult(),
          millis(r.getQueueWait()),
          millis(r.getDuration()),
          r.getTriggersList().stream().map(ReconcilesPrinter::trigger).collect(Collectors.joining("; ")),
          r.getMessage())));
    }
    table.print(out);
  }

  private static String trigger(ReconcileTrigger t) {
    return t.getDetail().isEmpty() ? t.getKind() : t.getKind() + " " + t.getDetail();
  }

  private static String millis(com.google.protobuf.Duration d) {
    return String.format(Locale.ROOT, "%.1f ms", Durations.toNanos(d) / 1e6);
  }

  private static String json(List<ReconcileInfo> reconciles) {
    try {
      return JsonFormat.printer().print(ListReconcilesResponse.newBuilder().addAllReconciles(reconciles));
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException("a reconcile record always prints as JSON", e);
    }
  }
}
