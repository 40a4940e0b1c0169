package io.setpoint.cli;

import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** What {@code controller history} and {@code why} share: the resource's tenancy, the output and how many. */
final class ReconcilesOptions {
  @Mixin TenancyOptions tenancy;

  @Mixin OutputOption output;

  @Option(names = "-limit", paramLabel = "N", defaultValue = "50", description = "At most N reconciles (default: ${DEFAULT-VALUE}; at most 256).")
  int limit;
}
