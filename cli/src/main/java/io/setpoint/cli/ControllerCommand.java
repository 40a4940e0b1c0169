package io.setpoint.cli;

import picocli.CommandLine.Command;

/** {@code setpoint controller list|reconcile}: the controllers an agent runs. */
@Command(
    name = "controller",
    description = "Lists the controllers an agent runs, and reconciles a resource on demand.",
    subcommands = {ControllerListCommand.class, ControllerReconcileCommand.class})
final class ControllerCommand {}
