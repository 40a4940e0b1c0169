package io.setpoint.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.setpoint.cli.CliRun;
import io.setpoint.loadgen.EtcdProcess;
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
import org.junit.jupiter.api.condition.EnabledIf;

/**
 * {@code setpoint bench writes} at a tiny size against agents it starts as separate JVMs: a
 * {@code -dev} agent with etcd pointed at a path where it is not (the "etcd is not installed"
 * path), and three durable members with leadership handed to one of them. The etcd side is tested
 * in the loadgen module, and leadership handed over in an etcd cluster here where etcd is installed.
 */
@Timeout(120)
class WritesBenchTest {

  @Test
  void reportsSetpointAloneWhenEtcdIsNotInstalled() throws Exception {
    Set<String> before = benchDirs();
    CliRun run = CliRun.run("bench", "writes", "-setpoint-mode", "dev", "-etcd", "/nonexistent/etcd",
        "-clients", "2", "-keys", "10", "-first", "500ms", "-client-warmup", "300ms", "-warmup", "200ms", "-duration", "1s");

    assertThat(run.code()).as(run.toString()).isZero();
    assertThat(run.out())
        .contains("etcd is not installed at /nonexistent/etcd")
        .contains("2 closed-loop clients (one write in flight each), 10 keys per client, 256 B data, first 0.5 s measured from the first write (the load generator warmed first, 0.3 s on a throwaway instance of each system), then warm-up 0.2 s, measured 1.0 s")
        .contains("agent JVM options: -Xms1g -Xmx1g")
        // This JVM was given no AOT cache, so neither are the agents it starts.
        .contains("AOT cache for the agents: none (")
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
    // A throwaway agent warmed the load generator and was stopped; a fresh one was measured.
    assertThat(run.out()).containsOnlyOnce("  load generator warmed: ");
    assertThat(run.out().split("setpoint dev \\(memory\\), 1 node: starting", -1)).hasSize(3);
    Matcher warmUp = Pattern.compile("first window / warm, writes/s.*\n +setpoint dev \\(memory\\) +1 node +put +([0-9.]+)x")
        .matcher(run.out());
    assertThat(warmUp.find()).as(run.out()).isTrue();
    assertThat(Double.parseDouble(warmUp.group(1))).isPositive();
    // The agent's temporary directory is gone with it.
    assertThat(benchDirs()).isSubsetOf(before);
  }

  @Test
  void handsLeadershipToTheMemberAskedAndSaysHowManyClientsWroteToIt() {
    // One client, which writes to member 1: with member 2 leading it writes through a follower.
    CliRun run = CliRun.run("bench", "writes", "-nodes", "3", "-no-etcd", "-ops", "put", "-leader", "2",
        "-clients", "1", "-keys", "5", "-first", "0", "-warmup", "0s", "-duration", "1s");

    assertThat(run.code()).as(run.toString()).isZero();
    assertThat(run.out()).contains("  member 2 leads\n")
        .containsPattern("3 +setpoint \\(raft\\) +put +warm .* 0/1\n")
        .contains("clients on the leader at the end: 0/1")
        .contains("on leader: clients writing to the member that led at the end of the window");
  }

  @Test
  @EnabledIf(value = "etcdInstalled", disabledReason = "etcd is not installed at /usr/bin/etcd")
  void handsEtcdsLeadershipToTheMemberAskedToo() {
    CliRun run = CliRun.run("bench", "writes", "-nodes", "3", "-no-setpoint", "-ops", "put", "-leader", "3",
        "-clients", "3", "-keys", "5", "-first", "0", "-warmup", "0s", "-duration", "1s");

    assertThat(run.code()).as(run.toString()).isZero();
    // Client 2 of 0, 1 and 2 writes to member 3.
    assertThat(run.out()).contains("  member 3 leads\n")
        .containsPattern("3 +etcd [^\n]* +put +warm .* 1/3\n");
  }

  static boolean etcdInstalled() {
    return EtcdProcess.installed(EtcdProcess.DEFAULT_BINARY);
  }

  @Test
  void passesAgentArgumentsThatReadLikeItsOwnOptions() {
    // "-history-mib" starts like the benchmark's -h: the agent gets it as given, and refuses 0.
    CliRun run = CliRun.run("bench", "writes", "-setpoint-mode", "dev", "-no-etcd",
        "-agent-arg=-history-mib", "-agent-arg", "0", "-clients", "1", "-keys", "1", "-first", "0", "-duration", "1s");

    assertThat(run.code()).as(run.toString()).isEqualTo(1);
    assertThat(run.out())
        .contains("could not start: setpoint agent n1 exited with code 2 before it was ready")
        .contains("-history-mib must be at least 1, was 0")
        .doesNotContain("no -no-acls flag");
  }

  @Test
  void aLeaderOutsideTheClusterIsAUsageError() {
    CliRun run = CliRun.run("bench", "writes", "-nodes", "1,3", "-leader", "4", "-no-etcd");

    assertThat(run.code()).isEqualTo(2);
    assertThat(run.err()).contains("-leader must be a member of every cluster (at most 3 for -nodes 3), was 4");
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
  void aNegativeClientWarmUpIsAUsageError() {
    CliRun run = CliRun.run("bench", "writes", "-client-warmup=-1s");

    assertThat(run.code()).isEqualTo(2);
    assertThat(run.err()).contains("Invalid value for option '-client-warmup'", "was '-1s'");
  }

  @Test
  void anAgentHeapThatIsNoSizeIsAUsageError() {
    CliRun run = CliRun.run("bench", "writes", "-agent-heap", "lots");

    assertThat(run.code()).isEqualTo(2);
    assertThat(run.err()).contains("-agent-heap must be a size such as 512m or 2g, or 'jvm', was 'lots'");
  }
}
