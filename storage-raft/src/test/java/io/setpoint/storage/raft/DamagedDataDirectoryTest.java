package io.setpoint.storage.raft;

import static io.setpoint.storage.conformance.Fixtures.DEFAULT_TENANCY;
import static io.setpoint.storage.conformance.Fixtures.WIDGET;
import static io.setpoint.storage.conformance.Fixtures.id;
import static io.setpoint.storage.conformance.Fixtures.resource;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.setpoint.api.v1.Resource;
import io.setpoint.storage.Consistency;
import io.setpoint.storage.engine.StoreEngine.Limits;
import io.setpoint.testkit.FreePorts;
import io.setpoint.testkit.Tmpfs;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.ratis.util.MD5FileUtil;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A one-member store restarted on a data directory with files missing or damaged: it recovers
 * every acknowledged write when it safely can, and otherwise refuses to start with a message
 * naming the file, the cause and what to do; it never starts with less than it acknowledged.
 */
class DamagedDataDirectoryTest {
  /** A snapshot every 16 entries in small segments: the log behind each snapshot is purged. */
  private static final RaftConfig.Tuning PURGING = TestCluster.FAST.withSnapshots(16, 1024);
  /** Snapshots, but one segment that never fills, so nothing is purged and the log starts at 0. */
  private static final RaftConfig.Tuning KEEPING = TestCluster.FAST.withSnapshots(16, 64L << 20);

  @TempDir Path root;

  private final List<RaftBackend> running = new ArrayList<>();
  private RaftConfig config;
  private DataDirectory dir;

  @AfterEach
  void stop() {
    running.forEach(RaftBackend::close);
    running.clear();
  }

  /** Starts a node, writes 100 resources one write per log entry, stops it; the acknowledged writes. */
  private List<Resource> written(RaftConfig.Tuning tuning) {
    return written(root.resolve("data"), tuning);
  }

  private List<Resource> written(Path dataDir, RaftConfig.Tuning tuning) {
    int port = FreePorts.loopback();
    config = new RaftConfig("solo", dataDir, port, Map.of("solo", "127.0.0.1:" + port), Limits.DEFAULT,
        tuning);
    dir = new DataDirectory(config);
    RaftBackend node = start();
    List<Resource> acked = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      acked.add(node.writeCas(resource(id("r" + i))));
    }
    node.close();
    running.remove(node);
    return acked;
  }

  private RaftBackend start() {
    RaftBackend node = RaftBackend.start(config);
    running.add(node);
    await().atMost(TestCluster.STARTUP).until(node::isLeader);
    return node;
  }

  private static List<Resource> all(RaftBackend node) {
    return node.list(Consistency.STRONG, WIDGET, DEFAULT_TENANCY, "", 0, "").resources();
  }

  private String refusal() {
    return assertThatThrownBy(() -> RaftBackend.start(config))
        .isInstanceOf(UncheckedIOException.class)
        .actual().getMessage();
  }

  private Path newestSnapshot() throws IOException {
    return snapshots().getFirst();
  }

  /** The snapshot files, newest first; the node keeps two. */
  private List<Path> snapshots() throws IOException {
    List<Path> files = dir.snapshots().stream().map(DataDirectory.Snapshot::file).toList();
    assertThat(files).hasSize(2);
    return files;
  }

  private static void flipByte(Path file, long position) throws IOException {
    byte[] bytes = Files.readAllBytes(file);
    bytes[(int) position] ^= 0x5a;
    Files.write(file, bytes);
  }

  @Test
  void aDeletedSnapshotBehindAPurgedLogRefusesToStartNamingTheFilesAndLeavesThemAsTheyWere() throws IOException {
    List<Resource> acked = written(PURGING);
    Path firstSegment = dir.segments().getFirst().file();
    assertThat(dir.segments().getFirst().start()).as("the log was purged behind a snapshot").isGreaterThan(0);
    Path saved = Files.createDirectories(root.resolve("saved"));
    for (DataDirectory.Snapshot s : dir.snapshots()) {
      Files.move(s.file(), saved.resolve(s.file().getFileName()));
      Files.move(s.checksumFile(), saved.resolve(s.checksumFile().getFileName()));
    }

    String message = refusal();

    assertThat(message)
        .contains(firstSegment.toString())
        .contains("starts at entry " + dir.segments().getFirst().start())
        .contains(dir.snapshotDir() + " holds no snapshot file")
        .contains("serve less than was acknowledged")
        .contains("Restore " + config.dataDir() + " from a backup");
    // Nothing was changed: with the snapshots back, every acknowledged write is there.
    try (Stream<Path> files = Files.list(saved)) {
      for (Path f : files.toList()) {
        Files.move(f, dir.snapshotDir().resolve(f.getFileName()));
      }
    }
    assertThat(all(start())).containsExactlyInAnyOrderElementsOf(acked);
  }

  @Test
  void snapshotsFailingTheirChecksumRefuseToStartWhenTheLogBehindThemIsPurged() throws IOException {
    written(PURGING);
    List<Path> snapshots = snapshots();
    for (Path snapshot : snapshots) {
      flipByte(snapshot, Files.size(snapshot) / 2);
    }

    String message = refusal();

    for (Path snapshot : snapshots) {
      assertThat(message).contains(snapshot + " cannot be used: its MD5 checksum is");
      assertThat(snapshot).exists();
    }
    assertThat(message).contains("recorded when it was written").contains("no usable snapshot in " + dir.snapshotDir() + " reaches it");
  }

  @Test
  void aSnapshotFailingItsChecksumIsMovedAsideWhenAnOlderOneAndTheLogHoldEverything() throws IOException {
    List<Resource> acked = written(KEEPING);
    assertThat(dir.segments().getFirst().start()).isZero();
    Path newest = newestSnapshot();
    flipByte(newest, Files.size(newest) / 2);

    RaftBackend node = start();

    assertThat(all(node)).containsExactlyInAnyOrderElementsOf(acked);
    assertThat(newest).doesNotExist();
    assertThat(newest.resolveSibling(newest.getFileName() + ".corrupt")).exists();
  }

  @Test
  void snapshotsWithoutTheirChecksumFilesRefuseToStartSayingHowToRecreateThem() throws IOException {
    written(PURGING);
    List<Path> snapshots = snapshots();
    for (Path snapshot : snapshots) {
      Files.delete(MD5FileUtil.getDigestFileForFile(snapshot.toFile()).toPath());
    }

    String message = refusal();

    for (Path snapshot : snapshots) {
      assertThat(message).contains(snapshot + " cannot be used: its checksum file " + snapshot + ".md5 is missing");
    }
    assertThat(message).contains("md5sum -b FILE > FILE.md5");
  }

  @Test
  void snapshotsWhoseContentsDoNotParseRefuseToStartWhenTheLogBehindThemIsPurged() throws IOException {
    written(PURGING);
    List<Path> snapshots = snapshots();
    for (Path snapshot : snapshots) {
      // Cut short, with a checksum that matches: written wrongly rather than damaged afterwards.
      try (var channel = Files.newByteChannel(snapshot, StandardOpenOption.WRITE)) {
        channel.truncate(Files.size(snapshot) / 2);
      }
      MD5FileUtil.computeAndSaveMd5ForFile(snapshot.toFile());
    }

    String message = refusal();

    for (Path snapshot : snapshots) {
      assertThat(message).contains(snapshot + " cannot be used: its contents do not parse");
    }
  }

  @Test
  void anEmptyRaftMetaIsRebuiltOnASingleNodeAndEveryAcknowledgedWriteIsThere() throws IOException {
    List<Resource> acked = written(PURGING);
    Files.write(dir.metaFile(), new byte[0]);

    RaftBackend node = start();

    assertThat(all(node)).containsExactlyInAnyOrderElementsOf(acked);
    Resource next = node.writeCas(resource(id("after")));
    assertThat(Long.parseLong(next.getVersion())).isGreaterThan(Long.parseLong(acked.getLast().getVersion()));
    assertThat(Files.readString(dir.metaFile())).contains("term=");
  }

  @Test
  void aMissingRaftMetaIsRebuiltOnASingleNode() throws IOException {
    List<Resource> acked = written(PURGING);
    Files.delete(dir.metaFile());

    assertThat(all(start())).containsExactlyInAnyOrderElementsOf(acked);
  }

  @Test
  void aMemberOfAClusterWithAnEmptyRaftMetaRefusesToStartSinceItCouldVoteTwice() throws IOException {
    try (TestCluster cluster = TestCluster.start(3, Limits.DEFAULT, TestCluster.FAST)) {
      cluster.awaitLeader().writeCas(resource(id("r")));
      String follower = cluster.follower().nodeName();
      cluster.stopMember(follower);
      DataDirectory member = new DataDirectory(cluster.config(follower));
      Files.write(member.metaFile(), new byte[0]);

      assertThatThrownBy(() -> cluster.startMember(follower))
          .isInstanceOf(UncheckedIOException.class)
          .hasMessageContaining(member.metaFile() + " is empty")
          .hasMessageContaining("could vote twice in one term")
          .hasMessageContaining("move " + cluster.config(follower).dataDir() + " aside");
      assertThat(member.metaFile()).isEmptyFile();
    }
  }

  @Test
  void aDamagedLogSegmentRefusesToStartNamingTheFileAndTheChecksum() throws IOException {
    written(PURGING);
    Path segment = dir.segments().getFirst().file();
    flipByte(segment, Files.size(segment) / 2);

    assertThat(refusal())
        .contains("the log segment " + segment + " is damaged at byte")
        .contains("checksum")
        .contains("Restore " + config.dataDir() + " from a backup");
  }

  @Test
  void aStartOnAFullDiskIsRefusedAndLeavesEveryFileForTheStartOnceSpaceIsFreed() throws Exception {
    try (Tmpfs disk = Tmpfs.mount(Files.createDirectories(root.resolve("disk")), 40)) {
      try {
        List<Resource> acked = written(disk.path().resolve("data"), PURGING);
        byte[] meta = Files.readAllBytes(dir.metaFile());
        Path filler = disk.path().resolve("filler");
        disk.fill(filler);

        assertThat(refusal()).contains(" bytes free").contains("Free space on it and start again");
        assertThat(dir.metaFile()).hasBinaryContent(meta);

        Files.delete(filler);
        assertThat(all(start())).containsExactlyInAnyOrderElementsOf(acked);
      } finally {
        stop();
      }
    }
  }

  @Test
  void aLastEntryCutShortByACrashIsDroppedAndEveryAcknowledgedWriteIsThere() throws IOException {
    List<Resource> acked = written(PURGING);
    DataDirectory.Segment open = dir.segments().getLast();
    // An entry announcing 100 bytes of which only 10 reached the disk.
    Files.write(open.file(), new byte[] {100, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, StandardOpenOption.APPEND);

    RaftBackend node = start();

    assertThat(all(node)).containsExactlyInAnyOrderElementsOf(acked);
    node.writeCas(resource(id("after")));
  }
}
