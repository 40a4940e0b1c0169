package io.setpoint.storage.raft;

import static io.setpoint.storage.conformance.Fixtures.DEFAULT_TENANCY;
import static io.setpoint.storage.conformance.Fixtures.WIDGET;
import static io.setpoint.storage.raft.MemberProcesses.readAcks;
import static io.setpoint.storage.raft.MemberProcesses.reader;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.WatchEvent;
import io.setpoint.storage.Backend.WatchCursor;
import io.setpoint.storage.engine.StoreEngine.Limits;
import io.setpoint.testkit.FreePorts;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A restarted member resumes a watch from a revision it sent before it stopped: after a SIGKILL
 * (it starts from its last periodic snapshot and replays the log after it) and after a graceful
 * stop (it snapshots as it stops, so nearly nothing is replayed). Either way the watch gets
 * exactly the changes after that revision, each once, with no gap. A restarted member that has
 * not yet caught up with a revision the leader sent catches up before it resumes a watch there.
 */
class WatchResumeAfterRestartTest {
  @TempDir Path dir;

  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void aWatchResumesFromARevisionSentBeforeAKillOrAStop() throws Exception {
    Path data = dir.resolve("data");
    int port = FreePorts.loopback();
    Map<String, String> acked = new HashMap<>();
    try (MemberProcesses members = new MemberProcesses(dir)) {
      Process writer = members.start("write", data, port);
      readAcks(reader(writer), acked, 1_500);
      writer.destroyForcibly(); // SIGKILL: no snapshot on stop
      assertThat(writer.waitFor(20, TimeUnit.SECONDS)).isTrue();
    }
    assertThat(snapshots(data))
        .as("snapshots were taken before the kill, so the restart starts from one, not from the log's start")
        .isNotEmpty();
    // The first acknowledged write: every watcher of the member had been sent its revision.
    long from = acked.values().stream().mapToLong(Long::parseLong).min().orElseThrow();

    List<WatchEvent> afterKill;
    try (RaftBackend member = started(data, port, acked)) {
      afterKill = resume(member, from);
    }
    assertThat(afterKill.stream().map(WatchEvent::getRevision))
        .as("every revision after %d once, in order", from)
        .containsExactlyElementsOf(LongStream.rangeClosed(from + 1, afterKill.getLast().getRevision()).boxed().toList());
    assertThat(upserted(afterKill)).containsAllEntriesOf(acked.entrySet().stream()
        .filter(a -> Long.parseLong(a.getValue()) > from)
        .collect(HashMap::new, (m, a) -> m.put(a.getKey(), a.getValue()), Map::putAll));

    // Stopped gracefully, the member snapshots as it stops: the history must be in that snapshot.
    try (RaftBackend member = started(data, port, acked)) {
      assertThat(resume(member, from)).isEqualTo(afterKill);
    }
  }

  @Test
  void aMemberBehindTheRevisionAWatchResumesFromCatchesUpFirst() throws Exception {
    try (TestCluster cluster = TestCluster.start(3, Limits.DEFAULT, TestCluster.FAST)) {
      long seen = Long.parseLong(cluster.writeNew("seen-by-all").getVersion());
      String behind = cluster.follower().nodeName();
      await().atMost(Duration.ofSeconds(10)).until(() -> cluster.member(behind).revision() >= seen);
      cluster.stopMember(behind);
      long sent = Long.parseLong(cluster.writeNew("missed").getVersion());
      List<String> others = cluster.members().stream().map(RaftBackend::nodeName).toList();
      others.forEach(cluster::stopMember);

      // Alone, the member cannot hear of the revision the watcher holds until the others are back.
      RaftBackend restarted = cluster.startMember(behind);
      assertThat(restarted.revision()).isLessThan(sent);
      CompletableFuture<WatchCursor> resumed =
          CompletableFuture.supplyAsync(() -> restarted.watch(WIDGET, DEFAULT_TENANCY, "", sent));
      others.forEach(cluster::startMember);

      try (WatchCursor watch = resumed.get(30, TimeUnit.SECONDS)) {
        Resource next = cluster.writeNew("after");
        List<WatchEvent> events = new ArrayList<>();
        while (events.isEmpty() || !events.getLast().getUpsert().getResource().equals(next)) {
          WatchEvent event = watch.poll(Duration.ofSeconds(10));
          assertThat(event).as("an event after %s", events).isNotNull();
          events.add(event);
        }
        assertThat(events.stream().map(WatchEvent::getRevision)).as("every revision after %d once", sent)
            .containsExactlyElementsOf(LongStream.rangeClosed(sent + 1, Long.parseLong(next.getVersion())).boxed().toList());
      }
    }
  }

  private static List<Path> snapshots(Path data) throws IOException {
    try (Stream<Path> files = Files.walk(data)) {
      return files.filter(f -> f.getFileName().toString().matches("snapshot\\.\\d+_\\d+")).toList();
    }
  }

  /** The member restarted in this JVM, once it has applied every acknowledged write again. */
  private static RaftBackend started(Path data, int port, Map<String, String> acked) {
    RaftBackend member = RaftBackend.start(MemberProcess.config(data, port));
    long newest = acked.values().stream().mapToLong(Long::parseLong).max().orElseThrow();
    await().atMost(Duration.ofSeconds(30)).until(() -> member.isLeader() && member.revision() >= newest);
    return member;
  }

  /** The events of a watch resumed after {@code from}, up to the member's revision (nothing writes meanwhile). */
  private static List<WatchEvent> resume(RaftBackend member, long from) throws InterruptedException {
    long until = member.revision();
    List<WatchEvent> events = new ArrayList<>();
    try (WatchCursor watch = member.watch(WIDGET, DEFAULT_TENANCY, "", from)) {
      while (events.isEmpty() || events.getLast().getRevision() < until) {
        WatchEvent event = watch.poll(Duration.ofSeconds(10));
        assertThat(event).as("an event after %d of %d", events.size(), until - from).isNotNull();
        events.add(event);
      }
    }
    return events;
  }

  private static Map<String, String> upserted(List<WatchEvent> events) {
    Map<String, String> versions = new HashMap<>();
    for (WatchEvent event : events) {
      Resource r = event.getUpsert().getResource();
      versions.put(r.getId().getName(), r.getVersion());
    }
    return versions;
  }
}
