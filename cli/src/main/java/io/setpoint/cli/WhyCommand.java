package io.setpoint.cli;

import io.setpoint.api.Ids;
import io.setpoint.api.controller.v1.ListReconcilesRequest;
import io.setpoint.api.controller.v1.ReconcileInfo;
import io.setpoint.api.v1.ID;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/** {@code setpoint why TYPE NAME}: the reconciles that touched a resource, and what caused them. */
@Command(name = "why", description = {
    "Shows the recent reconciles, by every controller of the member asked, of one resource and those a change of it"
        + " caused (of its owner, say), newest first, each with what triggered it and how it ended.",
    "Needs operator:read, or read on the resource."})
final class WhyCommand extends ResourceCall {
  @Parameters(index = "0", paramLabel = "TYPE", description = TYPE_HELP)
  private String type;

  @Parameters(index = "1", paramLabel = "NAME", description = NAME_HELP)
  private String name;

  @Mixin private ReconcilesOptions options;

  @Override
  int run() {
    ID id = Ids.of(type(type), options.tenancy.tenancy(), name);
    List<ReconcileInfo> reconciles = client.reconciles(ListReconcilesRequest.newBuilder().setId(id).setLimit(options.limit).build());
    if (reconciles.isEmpty() && options.output.format == Format.table) {
      err().println("No controller of this member reconciled " + Ids.format(id) + " lately, nor because of it.");
      return 0;
    }
    ReconcilesPrinter.print(out(), options.output.format, reconciles);
    return 0;
  }
}
