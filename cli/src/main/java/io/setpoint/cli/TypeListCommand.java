package io.setpoint.cli;

import io.grpc.Status;
import io.setpoint.api.Tenancies;
import io.setpoint.api.Types;
import io.setpoint.api.v1.TypeInfo;
import io.setpoint.client.SetpointException;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;

/** {@code setpoint type list}: every type the agent serves, and where each comes from. */
@Command(name = "list", description = {
    "Lists the types the agent serves: compiled into it, or added with 'type apply' (runtime).",
    "Telling the two apart needs operator:read; without it the SOURCE column shows '?'."})
final class TypeListCommand extends ResourceCall {
  @Override
  int run() {
    Set<String> defined = definitions();
    Table table = new Table(List.of("TYPE", "SCOPE", "SOURCE", "MESSAGE"));
    for (TypeInfo info : json().types()) {
      String name = Types.definitionName(info.getType());
      table.row(List.of(Types.format(info.getType()), scope(info), defined == null ? "?" : defined.contains(name) ? "runtime" : "compiled",
          info.getDataMessage()));
    }
    table.print(out());
    return 0;
  }

  /** The names of the stored definitions, or null when the caller may not list them. */
  private Set<String> definitions() {
    try {
      return client.listAll(Types.TYPE_DEFINITION, Tenancies.CLUSTER).stream()
          .map(r -> r.getId().getName()).collect(Collectors.toSet());
    } catch (SetpointException e) {
      if (e.code() == Status.Code.PERMISSION_DENIED) {
        return null;
      }
      throw e;
    }
  }

  private static String scope(TypeInfo info) {
    return info.getScope().name().replace("SCOPE_", "").toLowerCase(java.util.Locale.ROOT);
  }
}
