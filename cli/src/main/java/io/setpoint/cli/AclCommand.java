package io.setpoint.cli;

import picocli.CommandLine.Command;

/** {@code setpoint acl}: the parent of the ACL commands. */
@Command(
    name = "acl",
    description = {
      "Bootstraps ACLs and creates tokens. Policies and tokens are resources (acl.v1.Policy, acl.v1.Token):",
      "write policies with 'setpoint resource apply'. See docs/security.md."},
    subcommands = {AclBootstrapCommand.class, AclTokenCommand.class})
final class AclCommand {}
