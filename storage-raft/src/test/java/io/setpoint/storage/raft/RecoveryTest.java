package io.setpoint.storage.raft;

import static io.setpoint.storage.conformance.Fixtures.DEFAULT_TENANCY;
import static io.setpoint.storage.conformance.Fixtures.WIDGET;
import static io.setpoint.storage.conformance.Fixtures.assertFails;
import static io.setpoint.storage.conformance.Fixtures.changed;
import static io.setpoint.storage.conformance.Fixtures.id;
import static io.setpoint.storage.conformance.Fixtures.resource;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.WatchEvent;
import io.setpoint.storage.Backend.WatchCursor;
import io.setpoint.storage.Consistency;
import io.setpoint.storage.StorageException.Reason;
import io.setpoint.storage.engine.StoreEngine.Limits;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Durability inside one JVM: a member restarted on its data directory recovers from its latest
 * snapshot plus the log after it; the log before a snapshot is purged; a member that missed more
 * than the leader's log holds is brought up to date by a snapshot, which closes its watches; the
 * snapshots carry the history, so watches resume from before them.
 */
class RecoveryTest {
  /** A snapshot every 16 entries, in small segments, so that the log is purged early. */
  private static final RaftConfig.Tuning SNAPSHOTTING = TestCluster.FAST.withSnapshots(16, 1024);

  private static List<Resource> all(RaftBackend b) {
    return b.list(Consistency.EVENTUAL, WIDGET, DEFAULT_TENANCY, "", 0, "").resources();
  }

  @Test
  void aRestartedMemberRecoversEveryWriteFromSnapshotAndLogAndRevisionsContinue() throws Exception {
    try (TestCluster cluster = TestCluster.start(1, Limits.DEFAULT, SNAPSHOTTING)) {
      RaftBackend member = cluster.awaitLeader();
      String name = member.nodeName();
      List<Resource> written = new ArrayList<>();
      for (int i = 0; i < 100; i++) {
        Resource r = member.writeCas(resource(id("r" + i)));
        if (i % 3 == 0) {
          r = member.writeCas(changed(r, "updated"));
        }
        if (i % 10 == 0) {
          member.deleteCas(r.getId(), r.getVersion());
        } else {
          written.add(r);
        }
      }
      long revision = member.revision();
      assertThat(member.replication().logStartIndex()).as("the log before the latest snapshot was purged").isGreaterThan(16);

      cluster.stopMember(name);
      RaftBackend restarted = cluster.startMember(name);
      cluster.awaitLeader();
      await().atMost(Duration.ofSeconds(10)).until(() -> restarted.revision() == revision);

      assertThat(all(restarted)).containsExactlyInAnyOrderElementsOf(written);
      Resource next = restarted.writeCas(resource(id("after-restart")));
      assertThat(Long.parseLong(next.getVersion())).isEqualTo(revision + 1);
      // The snapshots carried the history: a watch resumes from the first revision.
      try (WatchCursor watch = restarted.watch(WIDGET, DEFAULT_TENANCY, "", 1)) {
        assertThat(watch.poll(Duration.ofSeconds(10)).getRevision()).isEqualTo(2);
      }
    }
  }

  @Test
  void aFollowerThatMissedPurgedEntriesCatchesUpFromASnapshotAndItsWatchesClose() throws Exception {
    try (TestCluster cluster = TestCluster.start(3, Limits.DEFAULT, SNAPSHOTTING)) {
      RaftBackend leader = cluster.awaitLeader();
      Resource early = leader.writeCas(resource(id("early")));
      String lagging = cluster.follower().nodeName();
      await().atMost(Duration.ofSeconds(10)).until(() -> cluster.member(lagging).revision() >= Long.parseLong(early.getVersion()));
      cluster.stopMember(lagging);
      // No write is in flight: the stopped member holds no log entry past this one.
      long heldByLagging = leader.replication().lastAppliedLogIndex();

      List<Resource> missed = new ArrayList<>();
      for (int i = 0; i < 100; i++) {
        missed.add(leader.writeCas(resource(id("missed-" + i))));
      }
      long revision = leader.revision();
      List<String> others = cluster.members().stream().map(RaftBackend::nodeName).toList();
      await().atMost(Duration.ofSeconds(10)).until(() -> cluster.members().stream().allMatch(m -> m.revision() == revision));
      // Restart the lagging member alone: without a quorum it serves its old state, and a watch
      // on it starts from there.
      others.forEach(cluster::stopMember);
      RaftBackend behind = cluster.startMember(lagging);
      assertThat(behind.revision()).isLessThan(revision);
      WatchCursor watch = behind.watch(WIDGET, DEFAULT_TENANCY, "", 0);
      List<WatchEvent> seen = new ArrayList<>();
      WatchEvent event;
      do {
        event = watch.poll(Duration.ofSeconds(10));
        seen.add(event);
      } while (!event.hasEndOfSnapshot());
      assertThat(seen.getFirst().getUpsert().getResource()).isEqualTo(early);

      // The others come back with their logs purged far past what it has: it needs a snapshot.
      others.forEach(cluster::startMember);
      RaftBackend newLeader = cluster.awaitLeader();
      assertThat(newLeader.replication().logStartIndex())
          .as("the leader no longer holds the entries the lagging member needs")
          .isGreaterThan(heldByLagging + 1);
      await().atMost(Duration.ofSeconds(20)).until(() -> behind.revision() >= revision);

      List<Resource> expected = new ArrayList<>(missed);
      expected.add(early);
      assertThat(all(behind)).containsExactlyInAnyOrderElementsOf(expected);
      // Its watch either got the catch-up as events or was closed; a snapshot install closes it.
      long lastSeen = seen.getLast().getRevision();
      assertFails(
          Reason.WATCH_CLOSED,
          () -> {
            while (true) {
              WatchEvent e = watch.poll(Duration.ofSeconds(10));
              assertThat(e).as("the watch ends instead of going quiet").isNotNull();
            }
          });
      // The leader's snapshot carried its history: the watch resumes where it was closed.
      List<Resource> resumed = new ArrayList<>();
      try (WatchCursor again = behind.watch(WIDGET, DEFAULT_TENANCY, "", lastSeen)) {
        while (resumed.size() < missed.size()) {
          resumed.add(again.poll(Duration.ofSeconds(10)).getUpsert().getResource());
        }
      }
      assertThat(resumed).containsExactlyElementsOf(missed);
    }
  }
}
