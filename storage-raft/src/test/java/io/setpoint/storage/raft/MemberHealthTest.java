package io.setpoint.storage.raft;

import static io.setpoint.storage.conformance.Fixtures.DEFAULT_TENANCY;
import static io.setpoint.storage.conformance.Fixtures.WIDGET;
import static io.setpoint.storage.conformance.Fixtures.data;
import static io.setpoint.storage.conformance.Fixtures.id;
import static io.setpoint.storage.conformance.Fixtures.resource;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.setpoint.api.v1.Resource;
import io.setpoint.storage.Consistency;
import io.setpoint.storage.Health;
import io.setpoint.storage.StorageException;
import io.setpoint.storage.StorageException.Reason;
import io.setpoint.storage.engine.StoreEngine.Limits;
import io.setpoint.storage.raft.v1.Batch;
import io.setpoint.testkit.FreePorts;
import io.setpoint.testkit.Tmpfs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a member does when its disk fills up or its state machine fails: writes fail fast with the
 * reason, reads go on, {@link RaftBackend#health()} says why; a full disk is recovered from by
 * itself once space is freed, with every acknowledged write kept.
 */
@Timeout(120)
class MemberHealthTest {
  /** Node names are unique in the JVM: Ratis registers a JMX bean per member name. */
  private static final AtomicInteger MEMBERS = new AtomicInteger();

  @TempDir Path dir;

  private static RaftBackend start(RaftConfig config, Consumer<Batch> beforeApply) {
    RaftBackend member = RaftBackend.start(config, beforeApply);
    await().atMost(TestCluster.STARTUP).until(member::isLeader);
    return member;
  }

  /** A resource of about {@code bytes}, so that a few of them fill the log's preallocated space. */
  private static Resource big(String name, int bytes) {
    return resource(id(name)).toBuilder().setData(data("x".repeat(bytes))).build();
  }

  private static List<Resource> all(RaftBackend member) {
    return member.list(Consistency.EVENTUAL, WIDGET, DEFAULT_TENANCY, "", 0, "").resources();
  }

  @Test
  void aFullDiskFailsWritesFastKeepsReadsAndTheMemberResumesOnceSpaceIsFreed() throws Exception {
    try (Tmpfs disk = Tmpfs.mount(dir, 64)) {
      Path dataDir = disk.path().resolve("data");
      Path filler = disk.path().resolve("filler");
      try (RaftBackend member = start(TestCluster.solo(dataDir), batch -> {})) {
        List<Resource> acknowledged = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
          acknowledged.add(member.writeCas(resource(id("before-" + i))));
        }
        disk.fill(filler);

        // The log has some space preallocated; writing on uses it up and then fails.
        StorageException refused = null;
        for (int i = 0; i < 200 && refused == null; i++) {
          Resource next = big("full-" + i, 256 << 10);
          try {
            acknowledged.add(member.writeCas(next));
          } catch (StorageException e) {
            refused = e;
          }
        }
        assertThat(refused).as("a write failed once the disk was full").isNotNull();
        assertThat(refused.reason()).isEqualTo(Reason.UNAVAILABLE);

        // Refused with the cause at once: a write waiting on the stuck log would time out, not name the disk.
        assertThatThrownBy(() -> member.writeCas(resource(id("while-full"))))
            .isInstanceOfSatisfying(StorageException.class, e -> {
              assertThat(e.reason()).isEqualTo(Reason.UNAVAILABLE);
              assertThat(e.getMessage()).contains("disk holding the data directory " + dataDir + " is full");
            });
        Health health = member.health();
        assertThat(health.ok()).isFalse();
        assertThat(health.reason()).contains(dataDir + " is full", "resumes by itself");
        assertThat(all(member)).as("reads go on").containsAll(acknowledged);

        Files.delete(filler);
        await().atMost(Duration.ofSeconds(30)).until(() -> member.health().ok());
        Resource after = await().atMost(Duration.ofSeconds(30)).ignoreExceptions()
            .until(() -> member.writeCas(resource(id("after-space-freed"))), r -> true);

        assertThat(member.read(Consistency.STRONG, after.getId())).isEqualTo(after);
        assertThat(all(member)).containsAll(acknowledged);
        assertThat(Long.parseLong(after.getVersion())).isGreaterThan(Long.parseLong(acknowledged.getLast().getVersion()));
      }
    }
  }

  @Test
  void aLeaderWhoseDiskFillsLetsTheOthersGoOnAndCatchesUpOnceSpaceIsFreed() throws Exception {
    int cluster = MEMBERS.incrementAndGet();
    List<Integer> ports = FreePorts.loopback(3);
    Map<String, String> peers = new java.util.LinkedHashMap<>();
    for (int i = 0; i < 3; i++) {
      peers.put("c" + cluster + "m" + i, "127.0.0.1:" + ports.get(i));
    }
    List<String> names = List.copyOf(peers.keySet());
    try (Tmpfs disk = Tmpfs.mount(Files.createDirectory(dir.resolve("disk")), 64)) {
      Path filler = disk.path().resolve("filler");
      List<RaftBackend> members = new ArrayList<>();
      try {
        for (int i = 0; i < 3; i++) {
          Path dataDir = i == 0 ? disk.path().resolve("data") : dir.resolve(names.get(i));
          members.add(RaftBackend.start(
              new RaftConfig(names.get(i), dataDir, ports.get(i), peers, Limits.DEFAULT, TestCluster.FAST)));
        }
        RaftBackend full = members.get(0);
        await().atMost(TestCluster.STARTUP).ignoreExceptions()
            .until(() -> full.transferLeadership(full.nodeName(), Duration.ofSeconds(5)).equals(full.nodeName()));
        await().atMost(TestCluster.STARTUP).until(full::isLeader);

        List<Resource> acknowledged = new ArrayList<>();
        acknowledged.add(full.writeCas(resource(id("before"))));
        disk.fill(filler);
        StorageException refused = null;
        for (int i = 0; i < 200 && refused == null; i++) {
          try {
            acknowledged.add(full.writeCas(big("full-" + i, 256 << 10)));
          } catch (StorageException e) {
            refused = e;
          }
        }
        assertThat(refused).as("a write through the full member failed").isNotNull();
        assertThat(full.health().reason()).contains("is full");

        // Through the member that does not lead now: it forwards to the new leader, although it
        // first asks the full member (the first peer), which has taken its Raft division down.
        await().atMost(TestCluster.STARTUP).until(() -> members.get(1).isLeader() || members.get(2).isLeader());
        RaftBackend follower = members.get(1).isLeader() ? members.get(2) : members.get(1);
        Resource meanwhile = await().atMost(Duration.ofSeconds(30)).ignoreExceptions()
            .until(() -> follower.writeCas(resource(id("meanwhile"))), r -> true);
        acknowledged.add(meanwhile);
        assertThat(full.isLeader()).isFalse();

        Files.delete(filler);
        await().atMost(Duration.ofSeconds(30)).until(() -> full.health().ok());
        await().atMost(Duration.ofSeconds(30)).until(() -> full.revision() >= follower.revision());
        assertThat(all(full)).containsAll(acknowledged);
        Resource after = await().atMost(Duration.ofSeconds(30)).ignoreExceptions()
            .until(() -> full.writeCas(resource(id("after-space-freed"))), r -> true);
        await().atMost(Duration.ofSeconds(10)).until(() -> all(follower).contains(after));
      } finally {
        members.forEach(RaftBackend::close);
      }
    }
  }

  @Test
  void aStateMachineThatDiesMakesTheMemberFailWritesFastAndSayWhy() {
    try (RaftBackend member = start(TestCluster.solo(dir.resolve("data")), batch -> {
      if (batch.getOpsList().stream().anyMatch(op -> op.getWrite().getId().getName().equals("poison"))) {
        throw new OutOfMemoryError("injected into applying");
      }
    })) {
      Resource kept = member.writeCas(resource(id("kept")));
      assertThat(member.health()).isEqualTo(Health.OK);

      assertThatThrownBy(() -> member.writeCas(resource(id("poison"))))
          .isInstanceOf(StorageException.class);

      // Refused with the cause, not left to time out.
      assertThatThrownBy(() -> member.writeCas(resource(id("after"))))
          .isInstanceOfSatisfying(StorageException.class, e -> {
            assertThat(e.reason()).isEqualTo(Reason.UNAVAILABLE);
            assertThat(e.getMessage()).contains("Raft stopped on this member", "injected into applying", "restart the agent");
          });
      assertThat(member.health().ok()).isFalse();
      assertThat(member.health().reason()).contains("OutOfMemoryError: injected into applying", "restart the agent");
      assertThat(member.read(Consistency.EVENTUAL, kept.getId())).as("reads go on").isEqualTo(kept);
    }
  }

  @Test
  void aSnapshotLeftHalfWrittenByACrashIsDeletedAtStart() throws Exception {
    Path dataDir = dir.resolve("data");
    RaftConfig config = TestCluster.solo(dataDir);
    Path smDir;
    try (RaftBackend member = start(config, batch -> {})) {
      member.writeCas(resource(id("a")));
      try (var groups = Files.list(dataDir)) {
        smDir = groups.filter(Files::isDirectory).findFirst().orElseThrow().resolve("sm");
      }
    }
    Path leftover = Files.write(smDir.resolve("snapshot.1_7.writing"), new byte[4096]);

    try (RaftBackend member = start(config, batch -> {})) {
      assertThat(leftover).doesNotExist();
      assertThat(all(member)).hasSize(1);
    }
  }
}
