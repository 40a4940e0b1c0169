package io.setpoint.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code setpoint bench writes} at a tiny size against a {@code -dev} agent it starts as a separate
 * JVM. etcd is pointed at a path where it is not, so this runs the same everywhere and checks the
 * "etcd is not installed" path; the etcd side is tested in the loadgen module.
 */
@Timeout(120)
class WritesBenchTest {

  @Test
  void reportsSetpointAloneWhenEtcdIsNotInstalled() throws Exception {
    Set<String> before = benchDirs();
    CliRun run = CliRun.run("bench", "writes", "-setpoint-mode", "dev", "-etcd", "/nonexistent/etcd",
        "-clients", "2", "-keys", "10", "-first", "500ms", "-warmup", "200ms", "-duration", "1s");

    assertThat(run.code()).as(run.toString()).isZero();
    assertThat(run.out())
        .contains("etcd is not installed at /nonexistent/etcd")
        .contains("2 closed-loop clients (one write in flight each), 10 keys per client, 256 B data, first 0.5 s measured from the first write, then warm-up 0.2 s, measured 1.0 s")
        .contains("agent JVM options: -Xms1g -Xmx1g")
        .doesNotContain("setpoint / etcd");
    // The first window measures the first operation from the first write; then each operation warm.
    for (String window : new String[] {"put +first", "put +warm", "cas +warm"}) {
      Matcher row = Pattern.compile("1 +setpoint dev \\(memory\\) +" + window + " +([0-9,]+) +([0-9.]+) ms +([0-9.]+) ms +([0-9.]+) ms +([0-9]+) +([0-9,]+) us")
          .matcher(run.out());
      assertThat(row.find()).as(run.out()).isTrue();
      assertThat(Long.parseLong(row.group(1).replace(",", ""))).isPositive();
      assertThat(Double.parseDouble(row.group(2))).isLessThanOrEqualTo(Double.parseDouble(row.group(3)));
      assertThat(row.group(5)).isEqualTo("0");
      // The agent's CPU time over the measured window, per write: an agent that served writes used some.
      assertThat(Long.parseLong(row.group(6).replace(",", ""))).isPositive();
    }
    assertThat(run.out()).doesNotContain("cas   first");
    Matcher warmUp = Pattern.compile("first window / warm, writes/s.*\n +setpoint dev \\(memory\\) +1 node +put +([0-9.]+)x")
        .matcher(run.out());
    assertThat(warmUp.find()).as(run.out()).isTrue();
    assertThat(Double.parseDouble(warmUp.group(1))).isPositive();
    // The agent's temporary directory is gone with it.
    assertThat(benchDirs()).isSubsetOf(before);
  }

  private static Set<String> benchDirs() throws IOException {
    try (Stream<Path> all = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
      return all.map(p -> p.getFileName().toString())
          .filter(name -> name.startsWith("setpoint-bench-setpoint-"))
          .collect(Collectors.toSet());
    }
  }

  @Test
  void nothingToRunIsAUsageError() {
    CliRun run = CliRun.run("bench", "writes", "-no-setpoint", "-no-etcd");

    assertThat(run.code()).isEqualTo(2);
    assertThat(run.err()).contains("-no-setpoint and -no-etcd leave nothing to run");
  }

  @Test
  void aNegativeFirstWindowIsAUsageError() {
    CliRun run = CliRun.run("bench", "writes", "-first=-1s");

    assertThat(run.code()).isEqualTo(2);
    assertThat(run.err()).contains("Invalid value for option '-first'", "was '-1s'");
  }

  @Test
  void anAgentHeapThatIsNoSizeIsAUsageError() {
    CliRun run = CliRun.run("bench", "writes", "-agent-heap", "lots");

    assertThat(run.code()).isEqualTo(2);
    assertThat(run.err()).contains("-agent-heap must be a size such as 512m or 2g, or 'jvm', was 'lots'");
  }
}
