package io.setpoint.server;

import java.util.function.Supplier;

/**
 * The retry of a write that names no version (a blind write): it is a compare-and-swap on the
 * version the server just read, and when a concurrent writer wins that race, the server reads
 * again and retries, up to {@value #ATTEMPTS} times, instead of failing the caller with a
 * conflict it never asked to handle. A write with a version gets one attempt: its race is the
 * caller's.
 */
final class BlindWrites {
  /** How often a blind write retries its own compare-and-swap before giving up. */
  static final int ATTEMPTS = 16;

  private BlindWrites() {}

  /**
   * Runs {@code attempt} until it settles. An attempt returns the answer, or null when it lost a
   * race to a concurrent writer; only a blind write's attempt may return null.
   *
   * @param what names the write in the error when every attempt lost, e.g. {@code write of ...}
   */
  static <T> T retry(boolean blind, Supplier<T> attempt, Supplier<String> what) {
    for (int i = 1; i <= (blind ? ATTEMPTS : 1); i++) {
      T answer = attempt.get();
      if (answer != null) {
        return answer;
      }
    }
    throw Errors.aborted(what.get() + " lost " + ATTEMPTS + " races to concurrent writers; retry");
  }
}
