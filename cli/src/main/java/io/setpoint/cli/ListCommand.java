package io.setpoint.cli;

import io.setpoint.api.Types;
import io.setpoint.api.v1.ListRequest;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Type;
import java.time.Instant;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code setpoint resource list TYPE}. */
@Command(name = "list", description = "Lists resources of one type (every page).")
final class ListCommand extends ResourceCall {
  @Mixin private SelectionOptions selection;

  @Mixin private OutputOption output;

  @Option(names = "-consistent", description = "Linearizable listing instead of the default eventually consistent one.")
  private boolean consistent;

  @Override
  int run() {
    Type listed = type(selection.type);
    List<Resource> resources = client.listAll(ListRequest.newBuilder()
        .setType(listed).setTenancy(selection.tenancy.tenancy()).setNamePrefix(selection.prefix)
        .setConsistent(consistent).build());
    if (resources.isEmpty() && output.format == Format.table) {
      err().println("No " + Types.format(listed) + " resources found.");
      return 0;
    }
    new Printer(out(), output.format, this::json, Instant.now()).resources(resources);
    return 0;
  }
}
