package io.setpoint.cli;

import picocli.CommandLine.Command;

/** {@code setpoint controller list|history|reconcile}: the controllers an agent runs. */
@Command(
    name = "controller",
    description = "Lists the controllers an agent runs, shows what they reconciled and why, and reconciles a resource on demand.",
    subcommands = {ControllerListCommand.class, ControllerHistoryCommand.class, ControllerReconcileCommand.class})
final class ControllerCommand {}
