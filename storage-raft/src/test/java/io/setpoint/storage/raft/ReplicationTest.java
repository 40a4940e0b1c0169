package io.setpoint.storage.raft;

import static io.setpoint.storage.conformance.Fixtures.DEFAULT_TENANCY;
import static io.setpoint.storage.conformance.Fixtures.WIDGET;
import static io.setpoint.storage.conformance.Fixtures.changed;
import static io.setpoint.storage.conformance.Fixtures.id;
import static io.setpoint.storage.conformance.Fixtures.resource;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.setpoint.api.v1.Resource;
import io.setpoint.storage.Consistency;
import io.setpoint.storage.engine.StoreEngine.Limits;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** What three members agree on, and what a follower promises about reads. */
class ReplicationTest {
  private static TestCluster cluster;

  @BeforeAll
  static void start() {
    cluster = TestCluster.start(3, Limits.DEFAULT, TestCluster.FAST);
  }

  @AfterAll
  static void stop() {
    cluster.close();
  }

  @Test
  void aStrongReadOnAFollowerSeesEveryWriteTheLeaderAcknowledged() {
    RaftBackend leader = cluster.awaitLeader();
    RaftBackend follower = cluster.follower();
    Resource r = leader.writeCas(resource(id("strong")));
    for (int i = 0; i < 30; i++) {
      r = leader.writeCas(changed(r, "v" + i));
      assertThat(follower.read(Consistency.STRONG, id("strong"))).isEqualTo(r);
      assertThat(follower.list(Consistency.STRONG, WIDGET, DEFAULT_TENANCY, "strong", 0, "").resources())
          .containsExactly(r);
    }
  }

  @Test
  void aWriteThroughAFollowerIsReadableThereAtOnceEvenEventually() {
    RaftBackend follower = cluster.follower();
    for (int i = 0; i < 30; i++) {
      Resource r = follower.writeCas(resource(id("own-" + i)));
      assertThat(follower.read(Consistency.EVENTUAL, r.getId())).isEqualTo(r);
      assertThat(follower.revision()).isGreaterThanOrEqualTo(Long.parseLong(r.getVersion()));
    }
  }

  @Test
  void everyMemberHoldsTheSameResourcesAtTheSameVersions() {
    RaftBackend leader = cluster.awaitLeader();
    RaftBackend follower = cluster.follower();
    Resource a = leader.writeCas(resource(id("same-a")));
    Resource b = follower.writeCas(resource(id("same-b")));
    follower.writeCas(changed(a, "two"));
    leader.deleteCas(b.getId(), b.getVersion());
    long last = leader.writeCas(resource(id("same-c"))).getVersion().transform(Long::parseLong);
    List<RaftBackend> members = cluster.members();
    await().atMost(Duration.ofSeconds(10)).until(() -> members.stream().allMatch(m -> m.revision() >= last));
    List<Resource> expected =
        leader.list(Consistency.EVENTUAL, WIDGET, DEFAULT_TENANCY, "same-", 0, "").resources();
    assertThat(expected).hasSize(2);
    for (RaftBackend m : members) {
      assertThat(m.list(Consistency.EVENTUAL, WIDGET, DEFAULT_TENANCY, "same-", 0, "").resources())
          .as("member %s", m.nodeName())
          .isEqualTo(expected);
    }
  }
}
