package io.setpoint.cli;

import io.setpoint.api.Tenancies;
import io.setpoint.api.v1.Tenancy;
import picocli.CommandLine.Option;

/** {@code -partition} and {@code -namespace}; empty ones are defaulted by the server per scope. */
final class TenancyOptions {
  @Option(names = "-partition", paramLabel = "PARTITION", defaultValue = "",
      description = "The partition (default: \"default\" for partitioned types; \"*\" for all, in list and watch).")
  private String partition;

  @Option(names = "-namespace", paramLabel = "NAMESPACE", defaultValue = "",
      description = "The namespace (default: \"default\" for namespaced types; \"*\" for all, in list and watch).")
  private String namespace;

  Tenancy tenancy() {
    return Tenancies.of(partition, namespace);
  }
}
