package io.setpoint.cli;

import picocli.CommandLine.Option;

/** {@code -o table|json|yaml}. */
final class OutputOption {
  @Option(names = "-o", paramLabel = "FORMAT", defaultValue = "table",
      description = "Output format: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).")
  Format format;
}
