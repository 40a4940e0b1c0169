package io.setpoint.resource;

import java.util.List;

/**
 * A well-formed request that the stored state does not allow now: deleting a type that still has
 * resources, or changing a type in a way its stored data cannot follow. The service answers it
 * with {@code FAILED_PRECONDITION} (HTTP 412) and the reasons, one per line of the message.
 */
public final class RefusedException extends RuntimeException {
  private final List<String> reasons;

  /** At least one reason is required. */
  public RefusedException(String summary, List<String> reasons) {
    super(summary + (reasons.isEmpty() ? "" : ": " + String.join("; ", reasons)), null, false, false);
    if (summary.isEmpty()) {
      throw new IllegalArgumentException("a RefusedException needs a summary");
    }
    this.reasons = List.copyOf(reasons);
  }

  /** Why, one entry per problem (each breaking change, say); may be empty. */
  public List<String> reasons() {
    return reasons;
  }
}
