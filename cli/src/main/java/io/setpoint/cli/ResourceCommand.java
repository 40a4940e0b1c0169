package io.setpoint.cli;

import picocli.CommandLine.Command;

/** {@code setpoint resource}: the parent of the resource commands. */
@Command(
    name = "resource",
    description = "Reads, lists, applies, creates, deletes and watches resources on an agent.",
    subcommands = {ReadCommand.class, ListCommand.class, ApplyCommand.class, CreateCommand.class, DeleteCommand.class, WatchCommand.class})
final class ResourceCommand {}
