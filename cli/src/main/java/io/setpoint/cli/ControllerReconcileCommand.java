package io.setpoint.cli;

import io.setpoint.api.Ids;
import io.setpoint.api.v1.ID;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/** {@code setpoint controller reconcile CONTROLLER TYPE NAME}: a reconcile, now. */
@Command(name = "reconcile", description = {
    "Queues one resource for one controller, ahead of other work, with a MANUAL trigger; returns once it is queued.",
    "Ask the member the controller runs on (a SINGLETON controller runs on the Raft leader). Needs operator:write."})
final class ControllerReconcileCommand extends ResourceCall {
  @Parameters(index = "0", paramLabel = "CONTROLLER", description = "The controller's name ('controller list').")
  private String controller;

  @Parameters(index = "1", paramLabel = "TYPE", description = TYPE_HELP)
  private String type;

  @Parameters(index = "2", paramLabel = "NAME", description = NAME_HELP)
  private String name;

  @Mixin private TenancyOptions tenancy;

  @Override
  int run() {
    ID id = Ids.of(type(type), tenancy.tenancy(), name);
    client.reconcile(controller, id);
    out().println("queued " + Ids.format(id) + " for " + controller);
    return 0;
  }
}
