package io.setpoint.storage.raft;

import com.google.protobuf.ByteString;
import io.setpoint.storage.BackupFile;
import io.setpoint.storage.engine.StoreEngine;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.statemachine.impl.SimpleStateMachineStorage;
import org.apache.ratis.util.MD5FileUtil;

/**
 * Prepares a new data directory from a snapshot file ({@code setpoint snapshot restore}): a
 * one-member cluster whose store starts as the snapshot held it, revisions and all, so that the
 * next write gets the revision after the snapshot's.
 *
 * <p>It starts the member once, alone, on the directory, so that Ratis lays it out and elects it;
 * stops it; and leaves the snapshot where the state machine looks for its latest snapshot, labelled
 * with the member's last log position. Starting the member then loads the snapshot and skips the
 * entries before it, as after a restart.
 */
public final class BackupRestore {
  private static final Duration ELECTION = Duration.ofSeconds(30);
  private static final Duration APPLY_POLL = Duration.ofMillis(5);

  private BackupRestore() {}

  /**
   * Restores {@code snapshot} into {@code config}'s data directory, which must not exist or be
   * empty, for the member {@code config} names, alone.
   *
   * @throws IllegalArgumentException when the directory holds anything, {@code config} names
   *     other members, or the snapshot holds a key twice or a version past its revision
   * @throws UncheckedIOException when the directory cannot be written
   */
  public static void restore(BackupFile.Contents snapshot, RaftConfig config) {
    Path dir = config.dataDir();
    if (!isEmpty(dir)) {
      throw new IllegalArgumentException(dir + " is not empty: restore into a new data directory");
    }
    if (config.peers().size() != 1 || !config.peers().containsKey(config.nodeName())) {
      throw new IllegalArgumentException("a snapshot is restored into a cluster of one member; grow it afterwards");
    }
    List<ByteString> resources = snapshot.encoded();
    // What the member would refuse when it loads the snapshot (a key twice, a version past the
    // revision) is refused now, before anything is written.
    StoreEngine.checkRestore(config.limits(), snapshot.header().getRevision(), resources);
    boolean existed = Files.exists(dir);
    try {
      TermIndex last;
      try (RaftBackend member = RaftBackend.start(config)) {
        last = awaitLeader(member);
      }
      DataDirectory layout = new DataDirectory(config);
      Path file = layout.snapshotDir().resolve(SimpleStateMachineStorage.getSnapshotFileName(last.getTerm(), last.getIndex()));
      try {
        SnapshotFile.write(file, new SnapshotFile.Contents(snapshot.header().getRevision(), resources));
        MD5FileUtil.computeAndSaveMd5ForFile(file.toFile());
      } catch (IOException e) {
        throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
      }
    } catch (RuntimeException e) {
      // Left half made, the directory would refuse the next attempt as not empty.
      deleteQuietly(dir, existed);
      throw e;
    }
  }

  private static void deleteQuietly(Path dir, boolean keepDir) {
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder())
          .filter(f -> !(keepDir && f.equals(dir)))
          .forEach(f -> f.toFile().delete());
    } catch (IOException | UncheckedIOException e) {
      // What is left is named by the error the caller reports.
    }
  }

  /** Waits for the member to lead, its first entry applied; its last applied log position. */
  private static TermIndex awaitLeader(RaftBackend member) {
    long deadline = System.nanoTime() + ELECTION.toNanos();
    CountDownLatch leads = new CountDownLatch(1);
    boolean elected;
    try (AutoCloseable listening = member.onLeadershipChange(leading -> {
      if (leading) {
        leads.countDown();
      }
    })) {
      elected = leads.await(ELECTION.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while the new member was electing itself", e);
    } catch (Exception e) {
      throw new IllegalStateException("could not follow the new member's election: " + e.getMessage(), e);
    }
    if (!elected) {
      throw new IllegalStateException("the new member did not elect itself within " + ELECTION.toSeconds() + " s");
    }
    // A member alone elects itself within milliseconds, and hears of it before it has applied
    // the entry that its election appended.
    TermIndex applied = member.replication().lastAppliedTermIndex();
    while (applied == null && System.nanoTime() - deadline < 0) {
      LockSupport.parkNanos(APPLY_POLL.toNanos());
      applied = member.replication().lastAppliedTermIndex();
    }
    if (applied == null) {
      throw new IllegalStateException("the new member was elected but applied nothing within " + ELECTION.toSeconds()
          + " s: it stopped, or its log does not take writes");
    }
    return applied;
  }

  private static boolean isEmpty(Path dir) {
    if (!Files.exists(dir)) {
      return true;
    }
    try (Stream<Path> entries = Files.list(dir)) {
      return entries.findAny().isEmpty();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + dir + ": " + e.getMessage(), e);
    }
  }
}
