package io.setpoint.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.setpoint.cli.CliRun;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code setpoint bench}, run in-process at a tiny size: each benchmark completes and reports what
 * it measured. The numbers themselves are not checked; docs/benchmarks.md has the real runs.
 */
@Timeout(120)
class BenchCommandTest {

  @Test
  void reconcileLatencyReportsPercentilesOfEveryMeasuredWrite() {
    CliRun run = CliRun.run("bench", "reconcile-latency", "-writes", "50", "-warmup", "5");

    assertThat(run.code()).as(run.toString()).isZero();
    assertThat(run.out()).contains("writes: 50 measured after 5 warm-up");
    assertThat(run.out()).containsPattern("write to reconcile start: p50 [0-9.]+ us, .*\\(50 samples\\)");
  }

  @Test
  void reconcileLatencyComparesTracingOffWithTheSdkSamplingNothingInInterleavedRounds() {
    CliRun run = CliRun.run("bench", "reconcile-latency", "-writes", "20", "-warmup", "2", "-tracing", "compare",
        "-rounds", "2");

    assertThat(run.code()).as(run.toString()).isZero();
    assertThat(run.out()).containsPattern(
        "no tracing:\n  write acknowledged: +p50 .*\\(40 samples\\)\n  write to reconcile start: +p50 .*\\(40 samples\\)"
            + "\n  writes/s per round: +[0-9]+, [0-9]+\n");
    assertThat(run.out()).containsPattern("SDK, sampling 0:\n  write acknowledged: +p50 .*\\(40 samples\\)");
  }

  @Test
  void coldStartWaitsForEveryArtistToBeReconciled() {
    CliRun run = CliRun.run("bench", "cold-start", "-artists", "300", "-concurrency", "2");

    assertThat(run.code()).as(run.toString()).isZero();
    assertThat(run.out()).contains("artists: 300, controller concurrency 2");
    Matcher all = Pattern.compile("all reconciled: +([0-9.]+) s").matcher(run.out());
    Matcher first = Pattern.compile("first reconcile: +([0-9.]+) s").matcher(run.out());
    assertThat(all.find() && first.find()).as(run.out()).isTrue();
    assertThat(Double.parseDouble(all.group(1))).isGreaterThanOrEqualTo(Double.parseDouble(first.group(1)));
  }

  @Test
  void cacheMemoryComparesBothCachesWithTheStore() {
    // Enough artists that the store outweighs what other tests' threads release meanwhile.
    CliRun run = CliRun.run("bench", "cache-memory", "-artists", "20000");

    assertThat(run.code()).as(run.toString()).isZero();
    assertThat(run.out())
        .containsPattern("store: +[0-9.]+ MiB")
        .containsPattern("cache over a socket: +[0-9.-]+ MiB \\([0-9.-]+x the store\\)")
        .containsPattern("cache in-process: +[0-9.-]+ MiB \\([0-9.-]+x the store\\)");
  }

  @Test
  void typesComparesARuntimeTypeWithTheSameMessageCompiledIn() {
    // The cold window starts before the agent does, in a fresh JVM: on two busy cores starting takes
    // a few seconds, so a window of 4 s sometimes held no write at all.
    CliRun run = CliRun.run("bench", "types", "-clients", "2", "-cold", "8", "-warmup", "0", "-duration", "1");

    assertThat(run.code()).as(run.toString()).isZero();
    assertThat(run.out())
        .containsPattern("runtime type, protovalidate rules: cold +[0-9]+ writes/s, warm +[0-9]+ writes/s")
        .containsPattern("compiled type, Java hook: +cold +[0-9]+ writes/s, warm +[0-9]+ writes/s")
        .containsPattern("runtime / compiled: +cold +[0-9.]+x, warm +[0-9.]+x")
        .doesNotContain(" cold        0 writes/s");
  }

  @Test
  void aSizeThatIsNotPositiveIsAUsageError() {
    CliRun run = CliRun.run("bench", "cold-start", "-artists", "0");

    assertThat(run.code()).isEqualTo(2);
    assertThat(run.err()).contains("-artists must be positive, was 0");
  }

  @Test
  void failoverKillsTheLeadingControllerProcessAndTimesTheStandby() {
    CliRun run = CliRun.run("bench", "failover", "-processes", "2", "-rounds", "1",
        "-lease-duration", "1s", "-renew-deadline", "700ms", "-retry-period", "200ms");

    assertThat(run.code()).as(run.toString()).isZero();
    assertThat(run.out())
        .contains("2 controller processes, lease 1.0 s, renew deadline 0.7 s, retry period 0.2 s, 1 leaders killed")
        .containsPattern("kill -9 of the leader to a new write reconciled: median [0-9.]+ s, max [0-9.]+ s, min [0-9.]+ s");
  }

  /**
   * Three member processes and a joiner over 3,000 Artists: each Artist is reconciled by exactly
   * one process, a member killed with SIGKILL has its keys picked up, and the joiner takes a share
   * without moving keys between the others (the benchmark checks each and fails otherwise).
   */
  @Test
  void shardsSplitTheKeysAcrossProcessesSurviveAKillAndRebalanceOnAJoin() {
    CliRun run = CliRun.run("bench", "shards", "-artists", "3000", "-processes", "3", "-io", "0ms",
        "-lease-duration", "1500ms", "-renew-deadline", "1s", "-retry-period", "200ms");

    assertThat(run.code()).as(run.toString()).isZero();
    assertThat(run.out())
        .containsPattern("1 process: +[0-9,]+ reconciles/s \\(first pass [0-9,]+\\); cache [0-9.]+ MiB")
        .containsPattern("3 processes: [0-9,]+ reconciles/s \\([0-9.]+x; first pass [0-9,]+, [0-9.]+x\\); cache per process")
        .contains("every key reconciled by exactly one process: yes")
        .containsPattern("the others held all its slots after [0-9.]+ s \\(lease 1500 ms\\); the next pass reached every key: yes")
        .containsPattern("a joining member took [0-9.]+% of the keys; keys moved between the others: 0");
    java.util.regex.Matcher share = java.util.regex.Pattern.compile("a joining member took ([0-9.]+)%").matcher(run.out());
    assertThat(share.find()).isTrue();
    assertThat(Double.parseDouble(share.group(1))).as("the joiner's share, about a third").isBetween(25.0, 42.0);
  }
}
