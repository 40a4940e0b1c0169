package io.setpoint.testkit;

import static org.quicktheories.QuickTheory.qt;

import org.quicktheories.QuickTheory;
import org.quicktheories.core.Configuration;

/**
 * QuickTheories with a test's fixed defaults, so CI runs are reproducible; each default yields to
 * QuickTheories' own system property ({@code QT_SEED}, {@code QT_EXAMPLES}, {@code QT_SHRINKS})
 * when that is set, e.g. {@code -DQT_SEED=$RANDOM} to explore another seed locally.
 */
public final class SeededTheory {
  private SeededTheory() {}

  public static QuickTheory of(long seed, int examples, int shrinkCycles) {
    QuickTheory theory = qt();
    if (System.getProperty(Configuration.SEED) == null) {
      theory = theory.withFixedSeed(seed);
    }
    if (System.getProperty(Configuration.EXAMPLES) == null) {
      theory = theory.withExamples(examples);
    }
    if (System.getProperty(Configuration.SHRINKS) == null) {
      theory = theory.withShrinkCycles(shrinkCycles);
    }
    return theory;
  }
}
