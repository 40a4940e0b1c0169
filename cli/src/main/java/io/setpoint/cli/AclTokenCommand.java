package io.setpoint.cli;

import picocli.CommandLine.Command;

/** {@code setpoint acl token}: the parent of the token commands. */
@Command(name = "token", description = "Creates ACL tokens.", subcommands = {AclTokenCreateCommand.class})
final class AclTokenCommand {}
