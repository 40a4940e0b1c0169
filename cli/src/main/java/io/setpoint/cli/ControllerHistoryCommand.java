package io.setpoint.cli;

import io.setpoint.api.Ids;
import io.setpoint.api.controller.v1.ListReconcilesRequest;
import io.setpoint.api.controller.v1.ReconcileInfo;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/** {@code setpoint controller history CONTROLLER [TYPE NAME]}: what a controller reconciled lately, and why. */
@Command(name = "history", description = {
    "Lists a controller's recent reconciles on the member asked, newest first: the resource, the result, how long it"
        + " waited in the queue and ran, what triggered it, and its error or requeue reason. With TYPE and NAME, only"
        + " that resource's, or its last reconcile when none is recent. A controller keeps its last 256 reconciles.",
    "Needs operator:read, or read on the resource."})
final class ControllerHistoryCommand extends ResourceCall {
  @Parameters(index = "0", paramLabel = "CONTROLLER", description = "The controller's name ('controller list').")
  private String controller;

  @Parameters(index = "1", arity = "0..1", paramLabel = "TYPE", description = TYPE_HELP)
  private String type;

  @Parameters(index = "2", arity = "0..1", paramLabel = "NAME", description = NAME_HELP)
  private String name;

  @Mixin private ReconcilesOptions options;

  @Override
  int run() {
    ListReconcilesRequest.Builder request = ListReconcilesRequest.newBuilder().setController(controller).setLimit(options.limit);
    if (type != null) {
      if (name == null) {
        throw new CliException("give the resource as TYPE NAME, or neither");
      }
      request.setId(Ids.of(type(type), options.tenancy.tenancy(), name));
    }
    List<ReconcileInfo> reconciles = client.reconciles(request.build());
    if (reconciles.isEmpty() && options.output.format == Format.table) {
      err().println("No reconciles of " + controller + (type == null ? "" : " for " + type + " " + name) + " on this member.");
      return 0;
    }
    ReconcilesPrinter.print(out(), options.output.format, reconciles);
    return 0;
  }
}
