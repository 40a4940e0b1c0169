package io.setpoint.cli;

import static org.assertj.core.api.Assertions.assertThat;
import com.google.protobuf.Any;
import io.setpoint.api.Ids;
import io.setpoint.api.Tenancies;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.client.SetpointClient;
import io.setpoint.demo.DemoTypes;
import io.setpoint.demo.v2.Artist;
import io.setpoint.testkit.FreePorts;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A client given several agents ({@code -address a,b,c}) skips one that is down, and when the
 * agent it talks to stops, its next calls go to another member: reads and writes go on.
 */
class MultiAddressClientTest {
  private static final Duration WAIT = Duration.ofSeconds(60);

  @TempDir Path dir;
  private final List<CliRun> agents = new ArrayList<>();

  @AfterEach
  void stopAll() throws InterruptedException {
    ClusterArgs.stopAll(agents);
  }

  private static ID artist(String name) {
    return Ids.of(DemoTypes.ARTIST, Tenancies.of("default", "default"), name);
  }

  private static Resource artistNamed(String name) {
    return Resource.newBuilder().setId(artist(name)).setData(Any.pack(Artist.newBuilder().setName(name).build())).build();
  }

  @Test
  void aClientOfSeveralAgentsSkipsOneThatIsDownAndMovesOnWhenItsAgentStops() throws Exception {
    ClusterArgs cluster = new ClusterArgs(dir, 3);
    int[] api = cluster.apiPorts();
    for (int i = 0; i < 3; i++) {
      agents.add(CliRun.start(cluster.member(i, "-demo-types", "-no-demo-controllers")));
    }
    for (int port : api) {
      ClusterArgs.awaitReady(port, WAIT);
    }
    // Nothing listens on the first address.
    String addresses = "127.0.0.1:" + FreePorts.loopback() + ",127.0.0.1:" + api[0] + ",127.0.0.1:" + api[1] + ",127.0.0.1:" + api[2];
    try (SetpointClient client = SetpointClient.builder().address(addresses).build()) {
      client.write(artistNamed("before"));
      assertThat(client.readConsistent(artist("before")).getId().getName()).isEqualTo("before");

      // The agent it talks to (the first reachable) stops; the next calls go to another member.
      agents.get(0).interruptAndJoin();
      client.write(artistNamed("after"));
      assertThat(client.readConsistent(artist("before")).getId().getName()).isEqualTo("before");
      assertThat(client.raftPeers().getAnsweredBy()).isIn(cluster.name(1), cluster.name(2));
    }

    // The CLI takes the same list.
    CliRun listed = CliRun.run("resource", "list", "demo.v2.Artist", "-address", addresses);
    assertThat(listed.code()).as(listed.toString()).isZero();
    assertThat(listed.out()).contains("before", "after");
    CliRun mixed = CliRun.run("resource", "list", "demo.v2.Artist", "-address", "https://127.0.0.1:1,127.0.0.1:2");
    assertThat(mixed.code()).isEqualTo(Main.USAGE);
    assertThat(mixed.err()).contains("-address: address \"https://127.0.0.1:1,127.0.0.1:2\" mixes schemes");
  }
}
