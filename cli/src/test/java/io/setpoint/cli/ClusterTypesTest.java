package io.setpoint.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.grpc.Status.Code;
import io.setpoint.api.Ids;
import io.setpoint.api.v1.Type;
import io.setpoint.client.SetpointClient;
import io.setpoint.client.SetpointException;
import io.setpoint.testkit.GardenTypes;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A type applied through one member of a three-member cluster of {@code setpoint agent}
 * processes-in-a-JVM: every member serves it, a restarted member serves it again, and an
 * incompatible change is refused with its breaking changes, whichever member receives it.
 */
class ClusterTypesTest {
  private static final Type PLANT = GardenTypes.PLANT;

  private final List<CliRun> members = new ArrayList<>();

  @AfterEach
  void stopAll() throws InterruptedException {
    ClusterArgs.stopAll(members);
  }

  @Test
  void aTypeAppliedThroughOneMemberIsServedByAllAndAfterARestart(@TempDir Path dir) throws Exception {
    ClusterArgs cluster = new ClusterArgs(dir, 3);
    int[] api = cluster.apiPorts();
    for (int i = 0; i < 3; i++) {
      members.add(CliRun.start(cluster.member(i)));
    }
    try (SetpointClient first = SetpointClient.connect("127.0.0.1:" + api[0])) {
      await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> first.write(GardenTypes.definition(GardenTypes.files(false))) != null);
    }
    for (int port : api) {
      await().atMost(Duration.ofSeconds(30)).until(() -> ClusterArgs.serves(port, PLANT));
    }
    try (SetpointClient second = SetpointClient.connect("127.0.0.1:" + api[1]);
        SetpointClient third = SetpointClient.connect("127.0.0.1:" + api[2])) {
      second.write(GardenTypes.plant("fern", "fern", 40));
      assertThat(third.readConsistent(Ids.of(PLANT, "fern")).getData().getTypeUrl()).endsWith("acme.garden.v1.Plant");
      assertThatThrownBy(() -> third.write(GardenTypes.plant("nameless", "", 3)))
          .isInstanceOfSatisfying(SetpointException.class, e -> {
            assertThat(e.code()).isEqualTo(Code.INVALID_ARGUMENT);
            assertThat(e.violations()).anySatisfy(v -> {
              assertThat(v.field()).isEqualTo("resource.data.species");
              assertThat(v.description()).contains("string.min_len");
            });
          });
      // An incompatible change, through a member other than the one that applied the type.
      assertThatThrownBy(() -> third.write(GardenTypes.definition(GardenTypes.files(true))))
          .isInstanceOfSatisfying(SetpointException.class, e -> {
            assertThat(e.code()).isEqualTo(Code.FAILED_PRECONDITION);
            assertThat(e.getMessage()).contains("field 2 (height_cm) changes from int32 to string, and 1 stored resources set it");
          });
    }

    members.get(2).interruptAndJoin();
    members.set(2, CliRun.start(cluster.member(2)));
    await().atMost(Duration.ofSeconds(60)).until(() -> ClusterArgs.serves(api[2], PLANT));
    try (SetpointClient restarted = SetpointClient.connect("127.0.0.1:" + api[2])) {
      assertThat(restarted.readConsistent(Ids.of(PLANT, "fern")).getData().getTypeUrl()).endsWith("acme.garden.v1.Plant");
      restarted.write(GardenTypes.plant("moss", "moss", 2));
    }
  }
}
