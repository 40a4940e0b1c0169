package io.setpoint.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.setpoint.cli.CliRun;
import io.setpoint.demo.DemoTypes;
import io.setpoint.server.Agent;
import io.setpoint.storage.engine.StoreEngine.Limits;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code setpoint bench flood} at a tiny size against an in-process agent with ACLs, a rate limit of
 * 40 requests per second per client and watch buffers of 16 events (1 MiB): the facts the benchmark
 * reports, not its timings (docs/benchmarks.md has a real run). Token A's flood, sent from a process
 * of its own, is refused with 429 and Retry-After, token B's paced reads are all served, and the store closes watches that read
 * nothing while large Artists are written: the agent ends them while they are not read, once their
 * buffer is full, and when their clients read again they get what the transport still held and then
 * UNAVAILABLE saying they fell behind.
 */
@Timeout(120)
class FloodBenchTest {
  private static final int RATE = 40;

  @Test
  void aFloodIsRefusedWithRetryAfterWhileAnotherTokenIsServedAndWatchersThatDoNotReadFallBehind() {
    try (Agent agent = Agent.builder().port(0).acls(true).types(DemoTypes::register)
        .clientRateLimit(RATE, RATE)
        .storeLimits(new Limits(4096, 16, 64L << 20, 1L << 20))
        .start()) {
      CliRun run = CliRun.run("bench", "flood", "-address", "127.0.0.1:" + agent.port(),
          "-rate-limit", Integer.toString(RATE), "-warmup", "1s", "-duration", "2s", "-flood-clients", "8",
          "-watchers", "2", "-payload-kib", "512");

      assertThat(run.code()).as(run.toString()).isZero();
      String out = run.out();
      Matcher flood = Pattern.compile(
          "token A, 8 at once from its own process: [0-9,]+ requests in ([0-9.]+) s \\([0-9,]+/s offered\\): "
              + "([0-9,]+) refused 429 \\(([0-9,]+) with Retry-After\\), ([0-9,]+) served, 0 other").matcher(out);
      assertThat(flood.find()).as(out).isTrue();
      long refused = number(flood.group(2));
      assertThat(refused).as(out).isPositive();
      assertThat(number(flood.group(3))).isEqualTo(refused);
      // A's bucket holds 40 and refills at 40/s: it cannot have been served more over the time it
      // sent (give or take a second, for the requests in flight when it stopped), however fast or slow its process was.
      assertThat(number(flood.group(4))).as(out)
          .isLessThanOrEqualTo((long) (RATE + RATE * (Double.parseDouble(flood.group(1)) + 1)));
      assertThat(out).contains("every 429 carried Retry-After: yes");
      // With -address only the flood's process may be pinned (where taskset is), never this JVM.
      assertThat(out).containsPattern("CPUs: (token A's flood [0-9]+; the agent at 127\\.0\\.0\\.1:[0-9]+ and this JVM "
          + "\\(B's reader\\) not pinned|not pinned \\(.+\\))\n");

      Matcher served = Pattern.compile("reads answered 200 +([0-9,]+) +([0-9,]+)").matcher(out);
      assertThat(served.find()).as(out).isTrue();
      assertThat(number(served.group(1))).isPositive();
      assertThat(number(served.group(2))).isPositive();
      assertThat(out).containsPattern("refused \\(429\\) +0 +0\n").containsPattern("failed otherwise +0 +0\n");

      assertThat(out).contains("watchers that never read: 2 (1 gRPC, 1 HTTP)")
          .containsPattern("cut off while not reading: yes, all 2 within ")
          .containsPattern("once read again: gRPC: [0-9]+ events, then UNAVAILABLE: watch closed: fell more than .* behind")
          .containsPattern("once read again: HTTP: [0-9]+ events, then error event \\{\"code\":\"UNAVAILABLE\"")
          .containsPattern("agent heap used \\(no GC forced: the agent is not this benchmark's\\): before [0-9]+ MiB, "
              + "at the end of the writes [0-9]+ MiB, after the watches closed [0-9]+ MiB; at most [0-9]+ MiB used "
              + "\\(read every 250 ms\\); max heap [0-9]+ MiB");
    }
  }

  @Test
  void readsOverTheLimitAreAUsageError() {
    CliRun run = CliRun.run("bench", "flood", "-rate-limit", "10", "-read-rate", "20");

    assertThat(run.code()).isEqualTo(2);
    assertThat(run.err()).contains("-read-rate 20 is over -rate-limit 10: token B would be refused too");
  }

  private static long number(String digits) {
    return Long.parseLong(digits.replace(",", ""));
  }
}
