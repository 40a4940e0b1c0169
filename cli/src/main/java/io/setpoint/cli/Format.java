package io.setpoint.cli;

/** The output formats of {@code -o}. */
enum Format {
  table,
  json,
  yaml
}
