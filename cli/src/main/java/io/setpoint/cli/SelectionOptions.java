package io.setpoint.cli;

import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** What {@code list} and {@code watch} select: TYPE, a tenancy (wildcards allowed) and a name prefix. */
final class SelectionOptions {
  @Parameters(index = "0", paramLabel = "TYPE", description = ResourceCall.TYPE_HELP)
  String type;

  @Mixin TenancyOptions tenancy;

  @Option(names = "-prefix", paramLabel = "PREFIX", defaultValue = "", description = ResourceCall.PREFIX_HELP)
  String prefix;
}
