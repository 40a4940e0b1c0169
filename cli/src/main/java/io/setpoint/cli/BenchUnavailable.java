package io.setpoint.cli;

import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Unmatched;

/**
 * {@code setpoint bench} where the benchmarks are not on the class path: they live in the
 * setpoint-bench module, which a distribution does not carry, and {@code ./setpoint bench} in a
 * source checkout adds.
 */
@Command(name = "bench", description = "System benchmarks: run ./setpoint bench from a source checkout (docs/benchmarks.md).")
final class BenchUnavailable implements Callable<Integer> {
  @Unmatched
  private List<String> ignored;

  @Override
  public Integer call() {
    throw new CliException("the benchmarks are not in this build of setpoint: run ./setpoint bench from a source "
        + "checkout (docs/benchmarks.md)");
  }
}
