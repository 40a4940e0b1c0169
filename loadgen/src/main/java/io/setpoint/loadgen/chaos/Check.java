package io.setpoint.loadgen.chaos;

/**
 * The verdict of one check of a run.
 *
 * @param name what it checks, e.g. {@code linearizable}
 * @param passed whether it held
 * @param detail what was checked and, when it failed, why
 */
public record Check(String name, boolean passed, String detail) {
  /** {@code passed linearizable: 12 keys, ...} */
  @Override
  public String toString() {
    return (passed ? "passed " : "FAILED ") + name + ": " + detail;
  }
}
