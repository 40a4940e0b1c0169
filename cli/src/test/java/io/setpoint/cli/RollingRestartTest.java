package io.setpoint.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.setpoint.client.SetpointClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A rolling restart: the three agents of a cluster are stopped and started again one after
 * another, the leader among them, while clients given every agent's address compare-and-swap a
 * register. No acknowledged write is lost, the history stays linearizable, and no call fails but
 * compare-and-swaps lost to another client's: the clients' writes carry request ids, so a write
 * whose agent stopped or whose leader stepped down is sent again and applied once.
 */
class RollingRestartTest {
  /**
   * Operations each phase waits for, so that the swaps counted at the end show the load kept
   * working through every restart, however quickly agents now start and stop.
   */
  private static final int PHASE_OPERATIONS = 40;
  private static final Duration WAIT = Duration.ofSeconds(90);

  @TempDir Path dir;
  private final List<CliRun> agents = new ArrayList<>();

  @AfterEach
  void stopAll() throws InterruptedException {
    ClusterArgs.stopAll(agents);
  }

  @Test
  @Timeout(value = 240, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void everyMemberRestartedInTurnUnderLoadLosesNoAcknowledgedWrite() throws Exception {
    ClusterArgs cluster = new ClusterArgs(dir, 3);
    int[] api = cluster.apiPorts();
    for (int i = 0; i < 3; i++) {
      agents.add(CliRun.start(cluster.member(i, "-demo-types", "-no-demo-controllers")));
    }
    for (int port : api) {
      ClusterArgs.awaitReady(port, WAIT);
    }
    String addresses = Arrays.stream(api).mapToObj(p -> "127.0.0.1:" + p).collect(Collectors.joining(","));
    RegisterLoad load = new RegisterLoad();
    List<SetpointClient> clients = new ArrayList<>();
    for (int c = 0; c < 3; c++) {
      clients.add(SetpointClient.builder().address(addresses).deadline(Duration.ofSeconds(20)).build());
    }
    try {
      load.create(clients.get(0));
      AtomicBoolean running = new AtomicBoolean(true);
      int succeeded = 0;
      try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
        List<Future<Integer>> work = new ArrayList<>();
        for (int c = 0; c < clients.size(); c++) {
          SetpointClient client = clients.get(c);
          String name = "c" + c;
          work.add(pool.submit(() -> load.run(name, () -> client, running)));
        }
        try {
          load.awaitProgress(PHASE_OPERATIONS);
          // In the order the clients reach the agents, so that every restart moves every client.
          for (int i = 0; i < 3; i++) {
            agents.get(i).interruptAndJoin();
            load.awaitProgress(PHASE_OPERATIONS);
            agents.set(i, CliRun.start(cluster.member(i, "-demo-types", "-no-demo-controllers")));
            ClusterArgs.awaitReady(api[i], WAIT);
            load.awaitProgress(PHASE_OPERATIONS);
          }
        } finally {
          running.set(false);
        }
        for (Future<Integer> f : work) {
          succeeded += f.get(60, TimeUnit.SECONDS);
        }
      }
      System.out.printf("rolling restart: %d operations, %d swaps acknowledged, %d calls failed: %s%n",
          load.history.ops().size(), succeeded, load.failures.size(), load.failures);
      assertThat(succeeded).as("swaps acknowledged").isGreaterThan(100);
      assertThat(load.failures).as("calls that failed").isEmpty();
      assertThat(load.history.isLinearizable()).as("history of %d operations", load.history.ops().size()).isTrue();
      List<String> finals = new ArrayList<>();
      for (int port : api) {
        try (SetpointClient member = SetpointClient.connect("127.0.0.1:" + port)) {
          finals.add(RegisterLoad.read(member));
        }
      }
      assertThat(finals).as("the register on every member").containsOnly(finals.get(0));
    } finally {
      clients.forEach(SetpointClient::close);
    }
  }
}
