package io.setpoint.testkit;

import java.util.List;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.ToIntFunction;
import org.quicktheories.core.ExceptionReporter;
import org.quicktheories.core.Reporter;
import org.quicktheories.api.AsString;

/**
 * Finishes QuickTheories' shrinking of an operation-sequence case before reporting a failure.
 * QuickTheories shrinks the random draws behind a case, which shortens the op list only from its
 * end and turns ops the failure does not need into harmless ones; this then drops ops one at a
 * time, from the last, for as long as the case still fails, and reports the result the way
 * QuickTheories does (with the seed, and QuickTheories' own smallest case as the other value).
 * Shared by the model tests of the store and of the work queue (the {@code api} test-jar).
 *
 * @param <C> the case: an immutable list of operations with some fixed parameters
 */
public final class DroppingOps<C> implements Reporter {
  private final Consumer<C> property;
  private final ToIntFunction<C> size;
  private final BiFunction<C, Integer, C> without;
  private final int minimumSize;

  /**
   * @param property the check that failed; a candidate fails it by throwing
   * @param size how many ops a case holds
   * @param without the case without its op at an index
   * @param minimumSize the fewest ops a case may keep
   */
  public DroppingOps(Consumer<C> property, ToIntFunction<C> size, BiFunction<C, Integer, C> without,
      int minimumSize) {
    this.property = property;
    this.size = size;
    this.without = without;
    this.minimumSize = minimumSize;
  }

  @Override
  @SuppressWarnings("unchecked")
  public void falisification(
      long seed, int count, Object smallest, Throwable cause, List<Object> examples,
      AsString<Object> toString) {
    C minimal = (C) smallest;
    Throwable minimalCause = cause;
    for (boolean dropped = true; dropped; ) {
      dropped = false;
      for (int i = size.applyAsInt(minimal) - 1; i >= 0 && size.applyAsInt(minimal) > minimumSize; i--) {
        C candidate = without.apply(minimal, i);
        try {
          property.accept(candidate);
        } catch (Throwable failure) {
          minimal = candidate;
          minimalCause = failure;
          dropped = true;
        }
      }
    }
    new ExceptionReporter().falisification(seed, count, minimal, minimalCause, List.of(smallest), toString);
  }

  @Override
  public void falisification(
      long seed, int count, Object smallest, List<Object> examples, AsString<Object> toString) {
    new ExceptionReporter().falisification(seed, count, smallest, examples, toString);
  }

  @Override
  public void valuesExhausted(int completedExamples) {
    new ExceptionReporter().valuesExhausted(completedExamples);
  }
}
