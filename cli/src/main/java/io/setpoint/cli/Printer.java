package io.setpoint.cli;

import io.setpoint.api.Ids;
import io.setpoint.api.Tenancies;
import io.setpoint.api.v1.Condition;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Status;
import io.setpoint.api.v1.WatchEvent;
import io.setpoint.client.ResourceJson;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;

/** Prints resources and watch events as tables, JSON or YAML. */
final class Printer {
  private static final String[] EVENT_HEADER = {"EVENT", "REVISION", "RESOURCE"};
  private static final String EVENT_LINE = "%-15s  %-8s  %s";

  private final PrintWriter out;
  private final Format format;
  private final Supplier<ResourceJson> json;
  private final Instant now;
  private boolean eventHeaderPrinted;

  /**
   * @param json the server's types, asked for only by the JSON and YAML formats
   * @param now the time ages are counted to
   */
  Printer(PrintWriter out, Format format, Supplier<ResourceJson> json, Instant now) {
    this.out = out;
    this.format = format;
    this.json = json;
    this.now = now;
  }

  /** One resource: a one-row table, or one document. */
  void resource(Resource resource) {
    switch (format) {
      case table -> table(List.of(resource));
      case json -> out.println(json.get().print(resource));
      case yaml -> out.print(Documents.yaml(json.get().print(resource)));
    }
    out.flush();
  }

  /** Several resources: a table, a JSON array, or a stream of YAML documents. */
  void resources(List<Resource> resources) {
    switch (format) {
      case table -> table(resources);
      case json -> out.println(Documents.jsonArray(resources.stream().map(json.get()::print).toList()));
      case yaml -> resources.forEach(r -> out.print(Documents.yaml(json.get().print(r))));
    }
    out.flush();
  }

  /** One watch event: a line (table, after a header line, or JSON) or a YAML document. */
  void event(WatchEvent event) {
    if (format == Format.table && !eventHeaderPrinted) {
      out.println(String.format(EVENT_LINE, (Object[]) EVENT_HEADER).stripTrailing());
      eventHeaderPrinted = true;
    }
    String kind = switch (event.getEventCase()) {
      case UPSERT -> "UPSERT";
      case DELETE -> "DELETE";
      case END_OF_SNAPSHOT -> "END_OF_SNAPSHOT";
      case EVENT_NOT_SET -> "UNKNOWN";
    };
    Resource resource = switch (event.getEventCase()) {
      case UPSERT -> event.getUpsert().getResource();
      case DELETE -> event.getDelete().getResource();
      default -> null;
    };
    String revision = Long.toUnsignedString(event.getRevision());
    switch (format) {
      case table -> out.println(String.format(EVENT_LINE, kind, revision,
          resource == null ? "" : Ids.format(Ids.withoutUid(resource.getId()))).stripTrailing());
      case json -> out.println(Documents.event(kind, revision, resource == null ? null : json.get().print(resource)));
      case yaml -> out.print(Documents.yaml(Documents.event(kind, revision, resource == null ? null : json.get().print(resource))));
    }
    out.flush();
  }

  private void table(List<Resource> resources) {
    boolean conditions = resources.stream().anyMatch(r -> r.getStatusCount() > 0);
    List<String> header = new ArrayList<>(List.of("NAME", "TENANCY", "VERSION", "GENERATION", "AGE"));
    if (conditions) {
      header.add("CONDITIONS");
    }
    Table table = new Table(header);
    for (Resource r : resources) {
      String tenancy = Tenancies.format(r.getId().getTenancy());
      List<String> row = new ArrayList<>(List.of(
          r.getId().getName(),
          tenancy.isEmpty() ? "-" : tenancy,
          r.getVersion(),
          r.getGeneration(),
          age(r.getId().getUid())));
      if (conditions) {
        row.add(conditions(r));
      }
      table.row(row);
    }
    table.print(out);
  }

  /** {@code Type=True, Other=False}; prefixed by the status key when there are several keys. */
  static String conditions(Resource resource) {
    Map<String, Status> statuses = new TreeMap<>(resource.getStatusMap());
    List<String> parts = new ArrayList<>();
    for (Map.Entry<String, Status> status : statuses.entrySet()) {
      String prefix = statuses.size() > 1 ? status.getKey() + ":" : "";
      for (Condition c : status.getValue().getConditionsList()) {
        parts.add(prefix + c.getType() + "=" + state(c.getState()));
      }
    }
    return parts.isEmpty() ? "-" : String.join(", ", parts);
  }

  private static String state(Condition.State state) {
    return switch (state) {
      case STATE_TRUE -> "True";
      case STATE_FALSE -> "False";
      default -> "Unknown";
    };
  }

  /** How long ago a ULID was minted, e.g. {@code 42s}, {@code 5m}, {@code 3h}, {@code 12d}. */
  String age(String ulid) {
    Instant created = Ulids.instant(ulid);
    if (created == null) {
      return "-";
    }
    Duration age = Duration.between(created, now);
    if (age.isNegative()) {
      age = Duration.ZERO;
    }
    if (age.toSeconds() < 120) {
      return age.toSeconds() + "s";
    }
    if (age.toMinutes() < 120) {
      return age.toMinutes() + "m";
    }
    if (age.toHours() < 48) {
      return age.toHours() + "h";
    }
    return age.toDays() + "d";
  }
}
