package io.setpoint.loadgen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class CpuTimeTest {

  @Test
  void aRunningProcessHasItsTotalFromTheJdkAndTheSystemPartWithinIt() {
    assumeThat(Files.isReadable(Path.of("/proc/self/stat"))).as("system time is read from Linux's /proc").isTrue();
    long pid = ProcessHandle.current().pid();
    long before = ProcessHandle.current().info().totalCpuDuration().orElseThrow().toNanos();

    CpuTime cpu = CpuTime.of(pid);

    long after = ProcessHandle.current().info().totalCpuDuration().orElseThrow().toNanos();
    assertThat(cpu.totalNanos()).isBetween(before, after).isPositive();
    assertThat(cpu.systemNanos()).isBetween(0L, cpu.totalNanos());
  }

  @Test
  void anExitedProcessIsUnknown() throws Exception {
    Process process = new ProcessBuilder("true").start();
    process.waitFor();

    assertThat(CpuTime.of(process.pid())).isEqualTo(CpuTime.UNKNOWN);
  }

  @Test
  void sumsAndDifferencesKeepWhatIsUnknownUnknown() {
    CpuTime a = new CpuTime(Duration.ofMillis(30).toNanos(), Duration.ofMillis(10).toNanos());
    CpuTime b = new CpuTime(Duration.ofMillis(50).toNanos(), CpuTime.UNKNOWN_NANOS);

    assertThat(a.plus(a)).isEqualTo(new CpuTime(60_000_000, 20_000_000));
    assertThat(new CpuTime(90_000_000, 25_000_000).since(a)).isEqualTo(new CpuTime(60_000_000, 15_000_000));
    assertThat(a.plus(b)).isEqualTo(new CpuTime(80_000_000, CpuTime.UNKNOWN_NANOS));
    assertThat(b.since(a)).isEqualTo(new CpuTime(20_000_000, CpuTime.UNKNOWN_NANOS));
    assertThat(CpuTime.UNKNOWN.since(a)).isEqualTo(CpuTime.UNKNOWN);
  }
}
