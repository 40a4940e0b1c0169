package io.setpoint.cli;

import picocli.CommandLine.Command;

/** {@code setpoint type apply|list|read|delete}: types added to a running agent from .proto files. */
@Command(
    name = "type",
    description = "Adds types to a running agent or cluster from .proto files, and lists, reads and deletes them.",
    subcommands = {TypeApplyCommand.class, TypeListCommand.class, TypeReadCommand.class, TypeDeleteCommand.class})
final class TypeCommand {}
