package io.setpoint.resource;

import io.setpoint.api.Echo;
import java.util.Objects;

/**
 * One broken rule: {@code field} is a path into the request ({@code data.tracks[3].name}),
 * {@code rule} a short machine-readable name ({@code required}, {@code dns-label}), and
 * {@code message} what a person should do about it. Both are {@linkplain Echo#bounded bounded}
 * ({@value #MAX_FIELD} and {@value #MAX_MESSAGE} characters), as a path or a message may hold
 * request input (a map key, an unknown JSON field) of any size.
 */
public record FieldViolation(String field, String rule, String message) {
  /** The longest field path kept. */
  public static final int MAX_FIELD = 200;
  /** The longest message kept. */
  public static final int MAX_MESSAGE = 500;

  public FieldViolation {
    field = Echo.bounded(Objects.requireNonNull(field, "field"), MAX_FIELD);
    Objects.requireNonNull(rule, "rule");
    message = Echo.bounded(Objects.requireNonNull(message, "message"), MAX_MESSAGE);
  }

  @Override
  public String toString() {
    return field + ": " + message + " (rule: " + rule + ")";
  }
}
