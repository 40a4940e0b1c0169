package io.setpoint.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import io.setpoint.api.Ids;
import io.setpoint.api.Statuses.Conditions;
import io.setpoint.api.Types;
import io.setpoint.api.core.v1.Lease;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.client.SetpointClient;
import io.setpoint.demo.ArtistController;
import io.setpoint.demo.DemoTypes;
import io.setpoint.demo.v2.Artist;
import io.setpoint.server.Agent;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code setpoint demo controllers}, twice, against an agent that serves the demo types but runs no
 * controllers: one run leads and reconciles, and when it stops the other takes over.
 */
class DemoControllersCommandTest {
  private static final Duration WAIT = Duration.ofSeconds(60);

  private Agent agent;
  private SetpointClient client;
  private final Map<String, CliRun> runs = new LinkedHashMap<>();

  @BeforeEach
  void start() {
    agent = Agent.builder().port(0).acls(false).types(DemoTypes::register).start();
    client = SetpointClient.connect("127.0.0.1:" + agent.port());
  }

  @AfterEach
  void stop() throws InterruptedException {
    for (CliRun run : runs.values()) {
      if (run.code() == null) {
        run.interruptAndJoin();
      }
    }
    client.close();
    agent.close();
  }

  @Test
  void twoProcessesElectOneLeaderAndTheStandbyTakesOverWhenItStops() throws Exception {
    runs.put("one", controllers("one"));
    runs.put("two", controllers("two"));

    ID first = artist("first");
    awaitAccepted(first);
    String leader = lease().getHolder();
    assertThat(runs).containsKey(leader);
    assertThat(runs.get(leader).out()).contains("demo controllers running against 127.0.0.1:" + agent.port(),
        "(election demo-controllers)");

    assertThat(runs.get(leader).interruptAndJoin().code()).isZero();
    String standby = leader.equals("one") ? "two" : "one";
    await().atMost(WAIT).until(() -> lease().getHolder().equals(standby));
    assertThat(lease().getEpoch()).isEqualTo(2);
    awaitAccepted(artist("second"));
  }

  @Test
  void electionTimingsThatDoNotNestAreAUsageError() {
    CliRun run = CliRun.run("demo", "controllers", "-address", "127.0.0.1:" + agent.port(),
        "-lease-duration", "5s", "-renew-deadline", "5s");

    assertThat(run.code()).as(run.toString()).isEqualTo(Main.USAGE);
    assertThat(run.err()).contains("renewDeadline PT5S must be shorter than leaseDuration PT5S");
  }

  private CliRun controllers(String holder) {
    return CliRun.start("demo", "controllers", "-address", "127.0.0.1:" + agent.port(), "-holder", holder,
        "-lease-duration", "3s", "-renew-deadline", "2s", "-retry-period", "300ms");
  }

  private ID artist(String name) {
    return client.write(Resource.newBuilder()
        .setId(Ids.of(DemoTypes.ARTIST, name))
        .setData(Any.pack(Artist.newBuilder().setName(name).build())).build()).getId();
  }

  private void awaitAccepted(ID id) {
    await().atMost(WAIT).until(() -> {
      var status = client.read(id).getStatusMap().get(ArtistController.STATUS_KEY);
      return status != null && Conditions.holds(status, "Accepted");
    });
  }

  private Lease lease() throws InvalidProtocolBufferException {
    return client.readConsistent(Ids.of(Types.LEASE, "demo-controllers")).getData().unpack(Lease.class);
  }
}
