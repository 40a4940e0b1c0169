package io.setpoint.cli;

import io.setpoint.api.Ids;
import io.setpoint.api.Tenancies;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Type;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code setpoint resource delete TYPE NAME}. */
@Command(name = "delete", description = {
    "Deletes one resource (and, through the server, what it owns).",
    "Deleting a resource that does not exist succeeds."})
final class DeleteCommand extends ResourceCall {
  @Parameters(index = "0", paramLabel = "TYPE", description = TYPE_HELP)
  private String type;

  @Parameters(index = "1", paramLabel = "NAME", description = NAME_HELP)
  private String name;

  @Mixin private TenancyOptions tenancy;

  @Option(names = "-version", paramLabel = "VERSION", defaultValue = "",
      description = "Only delete if the resource is still at this version.")
  private String version;

  @Override
  int run() {
    Type deleted = type(type);
    ID id = Ids.of(deleted, tenancy.tenancy(), name);
    // Named as the server names it, with the tenancy its scope defaults to.
    ID shown = json().type(deleted)
        .map(info -> id.toBuilder().setTenancy(Tenancies.defaulted(id.getTenancy(), info.getScope())).build())
        .orElse(id);
    client.delete(id, version);
    out().println("deleted " + Ids.format(shown));
    return 0;
  }
}
