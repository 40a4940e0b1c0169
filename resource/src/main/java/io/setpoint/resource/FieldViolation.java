package io.setpoint.resource;

import java.util.Objects;

/**
 * One broken rule: {@code field} is a path into the request ({@code data.tracks[3].name}),
 * {@code rule} a short machine-readable name ({@code required}, {@code dns-label}), and
 * {@code message} what a person should do about it.
 */
public record FieldViolation(String field, String rule, String message) {
  public FieldViolation {
    Objects.requireNonNull(field, "field");
    Objects.requireNonNull(rule, "rule");
    Objects.requireNonNull(message, "message");
  }

  @Override
  public String toString() {
    return field + ": " + message + " (rule: " + rule + ")";
  }
}
