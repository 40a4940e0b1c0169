package io.setpoint.storage;

import java.util.Objects;

/**
 * Whether a {@link Backend} can take writes now. An agent whose backend is not {@linkplain #ok()
 * ok} answers {@code /readyz} with 503 and the {@link #reason()}, so that an operator (or an
 * orchestrator) sees why.
 *
 * @param ok true when writes can be taken
 * @param reason what is wrong and what to do about it, for an operator; {@code "ok"} when ok
 */
public record Health(boolean ok, String reason) {
  /** Everything works. */
  public static final Health OK = new Health(true, "ok");

  public Health {
    Objects.requireNonNull(reason, "reason");
  }

  /** Not taking writes, for {@code reason}. */
  public static Health failing(String reason) {
    return new Health(false, reason);
  }
}
