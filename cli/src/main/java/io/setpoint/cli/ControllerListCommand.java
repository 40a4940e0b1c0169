package io.setpoint.cli;

import io.setpoint.api.Types;
import io.setpoint.api.controller.v1.ControllerInfo;
import java.util.List;
import picocli.CommandLine.Command;

/** {@code setpoint controller list}: the agent's controllers and how each is doing. */
@Command(name = "list", description = {
    "Lists the controllers of the agent: the type each manages, where it runs (SINGLETON: on the Raft leader;"
        + " EACH_SERVER: on every member), whether it runs on the member asked, its workers, its queue, the reconciles"
        + " that member ran since it started and how many failed, its failure, if any, and its faults: what failed"
        + " outside reconciles (a filter, mapper, source or initializer that threw, its cache's watch, a start),"
        + " how many times, and the last one.",
    "Needs operator:read."})
final class ControllerListCommand extends ResourceCall {
  @Override
  int run() {
    Table table = new Table(List.of("NAME", "TYPE", "PLACEMENT", "RUNNING", "WORKERS", "QUEUE", "RECONCILES", "ERRORS", "FAILURE",
        "FAULTS", "LAST FAULT"));
    for (ControllerInfo c : client.controllers()) {
      table.row(List.of(c.getName(), Types.format(c.getManagedType()), c.getPlacement(),
          c.getRunning() ? "yes" : "no", Integer.toString(c.getWorkers()), Integer.toString(c.getQueueDepth()),
          Long.toString(c.getReconciles()), Long.toString(c.getErrors()), c.getFailure(),
          Long.toString(c.getFaults()), c.getLastFault()));
    }
    table.print(out());
    return 0;
  }
}
