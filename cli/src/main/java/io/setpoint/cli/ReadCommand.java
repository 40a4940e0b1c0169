package io.setpoint.cli;

import io.setpoint.api.Ids;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import java.time.Instant;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code setpoint resource read TYPE NAME}. */
@Command(name = "read", description = "Reads one resource.")
final class ReadCommand extends ResourceCall {
  @Parameters(index = "0", paramLabel = "TYPE", description = TYPE_HELP)
  private String type;

  @Parameters(index = "1", paramLabel = "NAME", description = NAME_HELP)
  private String name;

  @Mixin private TenancyOptions tenancy;

  @Option(names = "-consistent", description = "Linearizable read instead of the default eventually consistent one.")
  private boolean consistent;

  @Mixin private OutputOption output;

  @Override
  int run() {
    ID id = Ids.of(type(type), tenancy.tenancy(), name);
    Resource resource = consistent ? client.readConsistent(id) : client.read(id);
    new Printer(out(), output.format, this::json, Instant.now()).resource(resource);
    return 0;
  }
}
