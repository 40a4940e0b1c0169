package io.setpoint.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.setpoint.cli.CliRun;
import io.setpoint.cli.Main;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code setpoint bench startup} for one round: an {@code agent -dev}, a durable node and etcd
 * (Debian's {@code etcd-server}, which {@code .ci/run} installs) each started until ready and
 * stopped with SIGTERM, and two CLI commands in fresh JVMs. Checks what is reported, not how fast.
 */
@Timeout(180)
class StartupBenchTest {
  private static final String TIME = "([0-9]+\\.[0-9]{3}) s \\([0-9.]+ - [0-9.]+\\)";

  @Test
  void timesEachServersStartAndStopAndTheCliInOneRound() {
    CliRun run = CliRun.run("bench", "startup", "-rounds", "1", "-keep-alive", "http1");

    assertThat(run.code()).as(run.toString()).isZero();
    String out = run.out();
    assertThat(out).contains("1 rounds, each server started on a new data directory and stopped with an idle HTTP1"
        + " connection open").doesNotContain("killed");
    for (String server : new String[] {"setpoint agent -dev", "setpoint durable node", "etcd 3\\.[0-9.]+"}) {
      Matcher row = Pattern.compile(server + " +" + TIME + " +" + TIME).matcher(out);
      assertThat(row.find()).as(out).isTrue();
      assertThat(Double.parseDouble(row.group(1))).as("ready of %s", server).isPositive();
      assertThat(Double.parseDouble(row.group(2))).as("stop of %s", server).isPositive();
    }
    assertThat(out).containsPattern("setpoint agent -dev +ready +[0-9.]+x +stop +[0-9.]+x")
        .containsPattern("setpoint durable node +ready +[0-9.]+x +stop +[0-9.]+x")
        .containsPattern("setpoint --version +" + TIME)
        .containsPattern("setpoint resource list \\(to -dev\\) +" + TIME);
  }

  @Test
  void anUnknownKeepAliveIsAUsageError() {
    CliRun run = CliRun.run("bench", "startup", "-keep-alive", "http3");

    assertThat(run.code()).isEqualTo(Main.USAGE);
    assertThat(run.err()).contains("-keep-alive", "http3");
  }
}
