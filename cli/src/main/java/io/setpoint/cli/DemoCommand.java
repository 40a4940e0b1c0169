package io.setpoint.cli;

import picocli.CommandLine.Command;

/** {@code setpoint demo controllers}: the demo's controllers, in a process of their own. */
@Command(
    name = "demo",
    description = "Runs parts of the demo (the types of 'agent -dev') against a running agent.",
    subcommands = {DemoControllersCommand.class})
final class DemoCommand {}
