package io.setpoint.resource;

import io.setpoint.api.Echo;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * A request broke one or more rules. The service answers it with {@code INVALID_ARGUMENT} and the
 * violations, so the message a client sees names every field and rule (the first {@value
 * #MAX_VIOLATIONS} of them: a request with thousands of bad map entries gets a bounded answer).
 * Each is a {@link FieldViolation}; {@link Violations} collects them while walking a message.
 */
public final class ValidationException extends RuntimeException {
  /** The most violations kept; the message says how many more there were. */
  public static final int MAX_VIOLATIONS = 20;

  private final List<FieldViolation> violations;

  /** At least one violation is required. */
  public ValidationException(List<FieldViolation> violations) {
    super(describe(violations), null, false, false);
    if (violations.isEmpty()) {
      throw new IllegalArgumentException("a ValidationException needs at least one violation");
    }
    this.violations = List.copyOf(violations.subList(0, Math.min(violations.size(), MAX_VIOLATIONS)));
  }

  /** A single violation. */
  public static ValidationException of(String field, String rule, String message) {
    return new ValidationException(List.of(new FieldViolation(field, rule, message)));
  }

  /** Every broken rule, in the order found. */
  public List<FieldViolation> violations() {
    return violations;
  }

  /** The same violations with {@code prefix.} put in front of every field path. */
  public ValidationException under(String prefix) {
    return new ValidationException(
        violations.stream()
            .map(v -> new FieldViolation(prefix + "." + v.field(), v.rule(), v.message()))
            .toList());
  }

  private static String describe(List<FieldViolation> violations) {
    String kept = violations.stream().limit(MAX_VIOLATIONS).map(FieldViolation::toString).collect(Collectors.joining("; "));
    int more = violations.size() - MAX_VIOLATIONS;
    return more > 0 ? kept + "; and " + more + " more violations" : kept;
  }

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
}
