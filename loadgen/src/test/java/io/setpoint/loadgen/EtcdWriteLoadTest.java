package io.setpoint.loadgen;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIf;

/**
 * The generator against a real single-member etcd it starts, through the etcd proto subset. Runs
 * only where etcd is installed at /usr/bin/etcd (Debian's etcd-server); {@link
 * SetpointWriteLoadTest} covers the generator everywhere else.
 */
@DisplayName("etcd write load (runs only when /usr/bin/etcd is installed)")
@EnabledIf(value = "etcdInstalled", disabledReason = "etcd is not installed at /usr/bin/etcd")
@Timeout(60)
class EtcdWriteLoadTest extends TargetContract {
  private static LocalCluster etcd;
  private static EtcdTarget target;

  static boolean etcdInstalled() {
    return EtcdProcess.installed(EtcdProcess.DEFAULT_BINARY);
  }

  @BeforeAll
  static void start() throws InterruptedException {
    etcd = EtcdProcess.start(EtcdProcess.DEFAULT_BINARY, 1, 0, Duration.ofSeconds(30));
    target = EtcdTarget.connect(etcd.endpoints(), 10_000);
  }

  @AfterAll
  static void stop() {
    if (target != null) {
      target.close();
    }
    if (etcd != null) {
      etcd.close();
    }
  }

  @Override
  Target target() {
    return target;
  }

  @Test
  void putsForTheWholeWindowWithoutErrors() throws InterruptedException {
    WriteLoad.awaitWritable(target, Duration.ofSeconds(10));

    Result result = WriteLoad.run(target, Op.PUT, SHORT);

    assertThat(result.system()).isEqualTo("etcd");
    assertMeasuredWithoutErrors(result, Op.PUT);
  }

  @Test
  void closingStopsTheServersAndDeletesTheirData() throws InterruptedException {
    LocalCluster second = EtcdProcess.start(EtcdProcess.DEFAULT_BINARY, 1, 0, Duration.ofSeconds(30));
    assertThat(second.allAlive()).isTrue();
    assertThat(second.dir().resolve("n1")).isDirectory();

    second.close();

    assertThat(second.allAlive()).isFalse();
    for (long pid : second.pids()) {
      assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)).isFalse();
    }
    assertThat(Files.exists(second.dir())).isFalse();
  }
}
