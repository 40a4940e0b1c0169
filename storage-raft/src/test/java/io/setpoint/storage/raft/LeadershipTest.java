package io.setpoint.storage.raft;

import static io.setpoint.storage.conformance.Fixtures.id;
import static io.setpoint.storage.conformance.Fixtures.resource;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.setpoint.storage.engine.StoreEngine.Limits;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** Singleton work can follow Raft leadership through {@link io.setpoint.storage.Replication}. */
class LeadershipTest {
  @Test
  void listenersHearWhoLeadsAndFollowAFailover() throws Exception {
    try (TestCluster cluster = TestCluster.start(3, Limits.DEFAULT, TestCluster.FAST)) {
      RaftBackend first = cluster.awaitLeader();
      Map<String, List<Boolean>> heard = new ConcurrentHashMap<>();
      for (RaftBackend member : cluster.members()) {
        List<Boolean> calls = new CopyOnWriteArrayList<>();
        heard.put(member.nodeName(), calls);
        member.onLeadershipChange(calls::add);
      }
      await()
          .atMost(Duration.ofSeconds(5))
          .untilAsserted(
              () -> {
                assertThat(heard.get(first.nodeName())).containsExactly(true);
                heard.forEach(
                    (name, calls) -> {
                      if (!name.equals(first.nodeName())) {
                        assertThat(calls).as("told at once that %s does not lead", name).containsExactly(false);
                      }
                    });
              });

      cluster.stopMember(first.nodeName());
      await()
          .atMost(Duration.ofSeconds(5))
          .untilAsserted(
              () ->
                  assertThat(heard.get(first.nodeName()))
                      .as("a closed member stops leading")
                      .containsExactly(true, false));
      RaftBackend second = cluster.awaitLeader();
      assertThat(second.nodeName()).isNotEqualTo(first.nodeName());
      await()
          .atMost(Duration.ofSeconds(5))
          .untilAsserted(() -> assertThat(heard.get(second.nodeName())).startsWith(false).endsWith(true));
      for (RaftBackend member : cluster.members()) {
        if (member != second) {
          assertThat(member.isLeader()).isFalse();
          assertThat(heard.get(member.nodeName())).endsWith(false);
        }
      }
    }
  }

  @Test
  void theLeaderListsEachMembersIndexAndLastContactAndMarksAStoppedOneUnreachable() {
    try (TestCluster cluster = TestCluster.start(3, Limits.DEFAULT, TestCluster.FAST)) {
      RaftBackend leader = cluster.awaitLeader();
      leader.writeCas(resource(id("a")));
      await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(leader.members()).allSatisfy(m -> {
        assertThat(m.index()).as(m.name()).isPresent();
        assertThat(m.index().getAsLong()).as(m.name()).isPositive();
        assertThat(m.lastContact()).as(m.name()).isPresent();
        assertThat(m.unreachable()).as(m.name()).isFalse();
      }));
      assertThat(leader.members()).filteredOn(m -> m.name().equals(leader.nodeName()))
          .singleElement().satisfies(m -> assertThat(m.lastContact()).hasValue(Duration.ZERO));

      String stopped = cluster.follower().nodeName();
      cluster.stopMember(stopped);
      await().atMost(Duration.ofSeconds(20)).until(() -> leader.members().stream()
          .filter(m -> m.name().equals(stopped)).findFirst().orElseThrow().unreachable());
      assertThat(leader.members()).filteredOn(m -> !m.name().equals(stopped)).noneMatch(m -> m.unreachable());

      // A follower knows the leader's contact, not the other follower's.
      RaftBackend follower = cluster.members().stream()
          .filter(m -> m != leader && !m.nodeName().equals(stopped)).findFirst().orElseThrow();
      assertThat(follower.members()).filteredOn(m -> m.name().equals(leader.nodeName()))
          .singleElement().satisfies(m -> assertThat(m.lastContact()).isPresent());
      assertThat(follower.members()).filteredOn(m -> m.name().equals(stopped))
          .singleElement().satisfies(m -> assertThat(m.lastContact()).isEmpty());
    }
  }

  @Test
  void membersAreListedWithTheLeaderAndLeadershipMovesOnRequest() {
    try (TestCluster cluster = TestCluster.start(3, Limits.DEFAULT, TestCluster.FAST)) {
      RaftBackend leader = cluster.awaitLeader();
      RaftBackend follower = cluster.follower();
      List<io.setpoint.storage.Replication.Member> members = follower.members();
      assertThat(members).extracting(io.setpoint.storage.Replication.Member::name)
          .containsExactlyInAnyOrderElementsOf(cluster.members().stream().map(RaftBackend::nodeName).toList());
      assertThat(members).filteredOn(io.setpoint.storage.Replication.Member::leader)
          .extracting(io.setpoint.storage.Replication.Member::name)
          .containsExactly(leader.nodeName());

      String moved = follower.transferLeadership(follower.nodeName(), Duration.ofSeconds(10));
      assertThat(moved).isEqualTo(follower.nodeName());
      await().atMost(Duration.ofSeconds(10)).until(follower::isLeader);
      assertThat(cluster.awaitLeader()).isSameAs(follower);

      String away = follower.transferLeadership("", Duration.ofSeconds(10));
      assertThat(away).isNotEqualTo(follower.nodeName());
      assertThat(cluster.awaitLeader().nodeName()).isEqualTo(away);
      io.setpoint.storage.conformance.Fixtures.assertFails(
          io.setpoint.storage.StorageException.Reason.NOT_FOUND,
          () -> follower.transferLeadership("nobody", Duration.ofSeconds(1)));
    }
  }

  @Test
  void aClosedHandleHearsNoMore() throws Exception {
    try (TestCluster cluster = TestCluster.start(1, Limits.DEFAULT, TestCluster.FAST)) {
      RaftBackend member = cluster.awaitLeader();
      List<Boolean> calls = new CopyOnWriteArrayList<>();
      AutoCloseable handle = member.onLeadershipChange(calls::add);
      await().atMost(Duration.ofSeconds(5)).until(() -> calls.equals(List.of(true)));
      handle.close();
      List<Boolean> after = new CopyOnWriteArrayList<>();
      member.onLeadershipChange(after::add);
      cluster.stopMember(member.nodeName());
      // The later listener hears the close, so the earlier one would have by now.
      await().atMost(Duration.ofSeconds(5)).until(() -> after.equals(List.of(true, false)));
      assertThat(calls).containsExactly(true);
    }
  }
}
