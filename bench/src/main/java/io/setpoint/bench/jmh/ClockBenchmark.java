package io.setpoint.bench.jmh;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;

/**
 * What one clock read costs on this machine: the work queue reads {@link System#nanoTime()} on
 * every add and take (for queue-wait times, delays and aging), so this bounds how fast a cycle can
 * be (see docs/benchmarks.md).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class ClockBenchmark extends StandardRun {

  @Benchmark
  public long nanoTime() {
    return System.nanoTime();
  }

  @Benchmark
  public long currentTimeMillis() {
    return System.currentTimeMillis();
  }
}
