package io.setpoint.loadgen;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * What every {@link Target} must do, whatever the system behind it: the tests each target's test
 * class inherits, run against a real server of that system.
 */
abstract class TargetContract {
  static final WriteLoad.Options SHORT =
      new WriteLoad.Options(4, 20, Duration.ofMillis(200), Duration.ofSeconds(1));

  /** The target under test, connected to a running server. */
  abstract Target target();

  @Test
  void casWritesSucceedOnTheVersionTheClientLastWrote() throws InterruptedException {
    Result result = WriteLoad.run(target(), Op.CAS, SHORT);

    assertMeasuredWithoutErrors(result, Op.CAS);
    assertThat(result.conflicts()).isZero();
  }

  @Test
  void blindWritesOfKeysEveryClientSharesAllSucceed() throws InterruptedException {
    Result result = WriteLoad.run(target(), Op.PUT,
        new WriteLoad.Options(4, 3, true, SHORT.warmup(), SHORT.duration()));

    assertMeasuredWithoutErrors(result, Op.PUT);
    assertThat(target().writer(0).version("shared-k0002")).as("a shared key's version").isPositive();
  }

  @Test
  void aCasOnAStaleVersionIsAConflictAndTheVersionCanBeReadBack() {
    Target.Writer writer = target().writer(0);
    long first = writer.put("conflict-probe", 1);
    long second = writer.cas("conflict-probe", first, 2);

    assertThat(second).isGreaterThan(first);
    assertThat(writer.cas("conflict-probe", first, 3)).isEqualTo(Target.CONFLICT);
    assertThat(writer.version("conflict-probe")).isEqualTo(second);
    assertThat(writer.version("never-written")).isZero();
  }

  @Test
  void aServerAloneLeadsItsCluster() {
    assertThat(target().leaderEndpoint()).hasValue(0);
  }

  static void assertMeasuredWithoutErrors(Result result, Op op) {
    assertThat(result.op()).isEqualTo(op);
    assertThat(result.errors()).as(result.toString()).isZero();
    assertThat(result.writes()).as(result.toString()).isPositive();
    assertThat(result.seconds()).isEqualTo(1.0);
    assertThat(result.writesPerSecond()).isEqualTo(result.writes() / 1.0);
    assertThat(result.p50()).isPositive();
    assertThat(result.p50()).isLessThanOrEqualTo(result.p90());
    assertThat(result.p90()).isLessThanOrEqualTo(result.p99());
    assertThat(result.p99()).isLessThanOrEqualTo(result.p999());
    assertThat(result.p999()).isLessThanOrEqualTo(result.max());
    // A closed loop cannot have more writes in flight than clients: latency bounds throughput.
    assertThat(result.writesPerSecond() * result.p50() / 1e9).isLessThanOrEqualTo(result.clients() * 2.0);
  }
}
