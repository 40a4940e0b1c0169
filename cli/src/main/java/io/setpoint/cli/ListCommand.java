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
import picocli.CommandLine.Parameters;

/** {@code setpoint resource list TYPE}. */
@Command(name = "list", description = "Lists resources of one type (every page).")
final class ListCommand extends ResourceCall {
  @Parameters(index = "0", paramLabel = "TYPE", description = TYPE_HELP)
  private String type;

  @Mixin private TenancyOptions tenancy;

  @Option(names = "-prefix", paramLabel = "PREFIX", defaultValue = "", description = PREFIX_HELP)
  private String prefix;

  @Mixin private OutputOption output;

  @Override
  int run() {
    Type listed = type(type);
    List<Resource> resources = client.listAll(ListRequest.newBuilder()
        .setType(listed).setTenancy(tenancy.tenancy()).setNamePrefix(prefix).build());
    if (resources.isEmpty() && output.format == Format.table) {
      err().println("No " + Types.format(listed) + " resources found.");
      return 0;
    }
    new Printer(out(), output.format, this::json, Instant.now()).resources(resources);
    return 0;
  }
}
