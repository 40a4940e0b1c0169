package io.setpoint.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.setpoint.storage.raft.RaftBackend;
import io.setpoint.storage.raft.RaftConfig;
import io.setpoint.testkit.FreePorts;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code /readyz} of an agent on a two-member Raft store answers 200 with a leader, 503 within 2 s
 * of its peer stopping (no majority: it cannot commit) and 200 again once the peer is back; {@code
 * /livez} answers 200 throughout.
 */
@Timeout(90)
class ReadinessTest {
  @TempDir Path first;
  @TempDir Path second;

  @Test
  void notReadyWithoutARaftLeaderAndReadyOnceOneIsElected() throws Exception {
    List<Integer> ports = FreePorts.loopback(2);
    Map<String, String> peers = Map.of("r1", "127.0.0.1:" + ports.get(0), "r2", "127.0.0.1:" + ports.get(1));
    HttpClient http = HttpClient.newHttpClient();
    RaftBackend store = RaftBackend.start(RaftConfig.of("r1", first, ports.get(0), peers));
    RaftBackend peer = RaftBackend.start(RaftConfig.of("r2", second, ports.get(1), peers));
    try (Agent agent = Agent.builder().port(0).acls(false).backend(store).start()) {
      String base = "http://127.0.0.1:" + agent.port();
      await().atMost(Duration.ofSeconds(60)).until(() -> get(http, base + "/readyz").statusCode() == 200);
      assertThat(get(http, base + "/readyz").body()).isEqualTo("ready\n");
      assertThat(get(http, base + "/metrics").body())
          .containsPattern("setpoint_raft_term [1-9]")
          .containsPattern("setpoint_raft_commit_index [1-9]")
          .containsPattern("setpoint_raft_applied_index [1-9]")
          .contains("setpoint_raft_apply_lag ", "setpoint_raft_leader ", "setpoint_raft_snapshot_seconds_count ")
          .containsPattern("setpoint_raft_leader_changes_total [1-9]")
          .containsPattern("setpoint_raft_log_syncs_total [1-9]")
          .containsPattern("setpoint_raft_log_sync_seconds\\{statistic=\"median\"} [0-9.E-]*[1-9]")
          .contains("setpoint_raft_log_sync_seconds{statistic=\"p99\"} ", "setpoint_raft_log_sync_seconds{statistic=\"max\"} ");

      // Its peer stops: no majority. Within 2 s it says so: as a leader that hears from nobody, as
      // a follower that hears no leader, or (once a leader alone steps down) that none is known.
      peer.close();
      await().atMost(Duration.ofSeconds(2)).until(() -> get(http, base + "/readyz").statusCode() == 503);
      assertThat(get(http, base + "/readyz").body()).containsAnyOf(
          "heard from only 1 of its 2 members", "no word from the Raft leader", "no Raft leader known");
      assertThat(get(http, base + "/livez").statusCode()).isEqualTo(200);

      peer = RaftBackend.start(RaftConfig.of("r2", second, ports.get(1), peers));
      await().atMost(Duration.ofSeconds(60)).until(() -> get(http, base + "/readyz").statusCode() == 200);
    } finally {
      peer.close();
    }
  }

  private static HttpResponse<String> get(HttpClient http, String uri) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create(uri)).build(), HttpResponse.BodyHandlers.ofString());
  }
}
