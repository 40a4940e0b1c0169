package io.setpoint.storage.raft;

import io.setpoint.storage.raft.DataDirectory.Segment;
import io.setpoint.storage.raft.DataDirectory.Snapshot;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.function.Consumer;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.io.MD5Hash;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.protocol.exceptions.ChecksumException;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.RaftServerConfigKeys.Log.CorruptionPolicy;
import org.apache.ratis.server.raftlog.segmented.LogSegment;
import org.apache.ratis.server.raftlog.segmented.LogSegmentPath;
import org.apache.ratis.server.storage.FileInfo;
import org.apache.ratis.statemachine.impl.SingleFileSnapshotInfo;
import org.apache.ratis.util.MD5FileUtil;
import org.apache.ratis.util.SizeInBytes;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a member checks in its data directory before Ratis opens it, so that it never starts
 * with less than it acknowledged, and never destroys what it finds. Ratis itself would start
 * empty when the snapshot behind a purged log is gone, and format away the snapshots when the log
 * directory is empty; it could not start at all after losing {@code raft-meta}, and names neither
 * the file nor the cause of a damaged log entry.
 *
 * <p>It recovers when that is safe: a snapshot that fails its checksum or does not parse is moved
 * aside when an older one and the log still hold everything; a lost {@code raft-meta} is rebuilt
 * for a member that is a cluster by itself. Otherwise it refuses with an {@link IOException} whose
 * message names the files, the cause and what the operator can do.
 */
final class StartupCheck {
  private static final Logger log = LoggerFactory.getLogger(StartupCheck.class);
  /**
   * The free space a member needs to start. Starting writes at once (the term of an election, the
   * leader's first entry, a new 4 MiB log segment), and Ratis's write of {@code raft-meta} on a
   * full disk renames an empty file over the old one.
   */
  static final long MIN_FREE_BYTES = 16L << 20;
  /** Where a snapshot that cannot be used is moved (Ratis's own name for such files). */
  private static final String ASIDE = ".corrupt";

  /** The snapshot to start from, checked against its checksum and read. */
  record Start(SingleFileSnapshotInfo snapshot, SnapshotFile.Contents contents) {}

  /** The last entry the log holds. */
  private record Last(long index, long term) {}

  private final RaftConfig config;
  private final DataDirectory dir;
  private final SizeInBytes maxEntry;

  StartupCheck(RaftConfig config, RaftProperties properties) {
    this.config = config;
    this.dir = new DataDirectory(config);
    // What Ratis itself allows an entry when it loads the log.
    this.maxEntry = RaftServerConfigKeys.Log.Appender.bufferByteLimit(properties);
  }

  /**
   * Checks the data directory and repairs what can be repaired safely.
   *
   * @return the snapshot to start from, or null to start from the log alone (or a new directory)
   * @throws IOException when this member must not start; the message says why and what to do
   */
  Start run() throws IOException {
    checkFreeSpace();
    if (!Files.isDirectory(dir.group()) || dir.isNew()) {
      return null;
    }
    try (FileChannel channel = FileChannel.open(dir.group().resolve("in_use.lock"),
            StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock lock = tryLock(channel)) {
      if (lock == null) {
        throw new IOException(dir.group() + " is in use by another process (it holds in_use.lock there)");
      }
      return checked();
    }
  }

  private void checkFreeSpace() throws IOException {
    Path existing = config.dataDir().toAbsolutePath();
    while (!Files.exists(existing) && existing.getParent() != null) {
      existing = existing.getParent();
    }
    long free = Files.getFileStore(existing).getUsableSpace();
    if (free < MIN_FREE_BYTES) {
      throw new IOException("not starting on " + config.dataDir() + ": its disk has " + free + " bytes free, and a"
          + " member needs " + MIN_FREE_BYTES + " to start (starting on a full disk could leave raft-meta empty)."
          + " Free space on it and start again.");
    }
  }

  private Start checked() throws IOException {
    List<Segment> segments = dir.segments();
    List<Snapshot> snapshots = dir.snapshots();
    if (segments.isEmpty() && !Files.exists(dir.metaFile()) && !snapshots.isEmpty()) {
      // Ratis would format the directory, deleting the snapshots with it.
      throw refusal(dir.current() + " holds neither raft-meta nor a log segment, but " + dir.snapshotDir()
          + " holds snapshots: the log after them, with writes it acknowledged, is gone (and Ratis would delete the"
          + " snapshots too).");
    }
    checkContiguous(segments);

    // Every check first, so that a refusal leaves every file as it was.
    List<Snapshot> unusable = new ArrayList<>();
    List<String> why = new ArrayList<>();
    Start start = null;
    for (Snapshot snapshot : snapshots) {
      try {
        start = start(snapshot, SnapshotFile.readVerified(snapshot.file()));
        break;
      } catch (IOException e) {
        unusable.add(snapshot);
        why.add(snapshot.file() + " cannot be used: " + e.getMessage());
      }
    }
    long startIndex = start == null ? -1 : start.snapshot().getIndex();
    Optional<String> metaDamage = metaDamage();
    // Reading the log's last entry costs a segment read: only when it is needed.
    Last last = segments.isEmpty() || (unusable.isEmpty() && metaDamage.isEmpty()) ? null : last(segments);
    checkCovered(segments, snapshots, startIndex, last, why);
    Optional<Long> term = recoveredTerm(metaDamage, start, last);

    for (int i = 0; i < unusable.size(); i++) {
      moveAside(unusable.get(i));
      log.warn("{}; moved it aside to {}{}, starting from {} and the log", why.get(i),
          unusable.get(i).file().getFileName(), ASIDE,
          start == null ? "the start of the log" : start.snapshot().getFile().getPath());
    }
    if (term.isPresent()) {
      writeMeta(term.get());
    }
    return start;
  }

  /** A gap between segments means entries are missing from the middle of the log. */
  private void checkContiguous(List<Segment> segments) throws IOException {
    for (int i = 1; i < segments.size(); i++) {
      Segment before = segments.get(i - 1);
      Segment after = segments.get(i);
      if (before.open() || after.start() != before.end() + 1) {
        throw refusal("the log segments " + before.file() + " and " + after.file() + " do not follow each other:"
            + " log entries between them are missing.");
      }
    }
  }

  /**
   * The snapshot we start from and the log must together hold every entry this member held: the
   * log must go on where the snapshot ends, and reach the newest snapshot even if that one cannot
   * be used.
   */
  private void checkCovered(
      List<Segment> segments, List<Snapshot> snapshots, long startIndex, Last last, List<String> why)
      throws IOException {
    String unusable = why.isEmpty() ? "" : " " + String.join("; ", why) + ".";
    String hint = checksumHint(why);
    if (!segments.isEmpty() && segments.getFirst().start() > startIndex + 1) {
      Segment first = segments.getFirst();
      String snapshotState = snapshots.isEmpty()
          ? dir.snapshotDir() + " holds no snapshot file."
          : "no usable snapshot in " + dir.snapshotDir() + " reaches it." + unusable;
      throw refusal("the oldest log segment, " + first.file() + ", starts at entry " + first.start()
          + ", so the entries before it were kept only in a snapshot, and " + snapshotState
          + " Starting would serve less than was acknowledged." + hint);
    }
    if (!snapshots.isEmpty() && snapshots.getFirst().index() > startIndex
        && (last == null || last.index() < snapshots.getFirst().index())) {
      throw refusal("the newest snapshot cannot be used, and the log "
          + (last == null ? "is empty" : "ends at entry " + last.index())
          + ", short of entry " + snapshots.getFirst().index() + " that snapshot held." + unusable
          + " Starting would serve less than was acknowledged." + hint);
    }
  }

  private static String checksumHint(List<String> why) {
    return why.stream().anyMatch(w -> w.contains("checksum file"))
        ? " If a snapshot is intact and only its .md5 file was lost, recreate that file (in sm/: md5sum -b FILE > FILE.md5)"
            + " and start again."
        : "";
  }

  /**
   * The term to rebuild {@code raft-meta} with, when it is missing, empty or unreadable (a full
   * disk once left it empty: Ratis renamed a temporary file whose write had failed over it).
   *
   * <p>{@code raft-meta} holds the member's current term and its vote in that term. Raft needs
   * both to survive: the term must never go back, and a member must never vote twice in one term,
   * or two leaders could be elected in it and write different entries at the same index. When the
   * member is a cluster by itself there is no one else to vote for or to elect, so only its own
   * log matters: recovering the term of the last entry it holds (or of its snapshot) is safe, since
   * its next election moves to a later term than any entry it has, and no other member holds
   * entries that could conflict. A member of a larger cluster cannot know which terms it voted in
   * after its last entry, so it refuses: the other members hold every acknowledged write, and it
   * can rejoin from them with an empty directory, the operator's choice (which forgets its votes
   * too, but is made once the cluster has moved on to a leader of a later term).
   */
  private Optional<Long> recoveredTerm(Optional<String> damage, Start start, Last last) throws IOException {
    if (damage.isEmpty()) {
      return Optional.empty();
    }
    int members = dir.members();
    if (members > 1) {
      throw refusal(dir.metaFile() + " " + damage.get() + ". It records this member's term and its vote in it;"
          + " without them, this member of a cluster of " + members + " could vote twice in one term and let two"
          + " leaders be elected, so it does not start.");
    }
    long term = Math.max(last == null ? 0 : last.term(), start == null ? 0 : start.snapshot().getTerm());
    log.warn("{} {}; this node is a cluster by itself, so it is safe to rebuild it with term {}, the last its"
        + " log and snapshot hold", dir.metaFile(), damage.get(), term);
    return Optional.of(term);
  }

  /** What is wrong with {@code raft-meta}, in the same terms as Ratis reads it; empty when nothing. */
  private Optional<String> metaDamage() {
    Path file = dir.metaFile();
    if (!Files.exists(file)) {
      return Optional.of("is missing");
    }
    try (InputStream in = Files.newInputStream(file)) {
      if (Files.size(file) == 0) {
        return Optional.of("is empty");
      }
      Properties properties = new Properties();
      properties.load(in);
      String term = properties.getProperty("term");
      if (term == null || properties.getProperty("votedFor") == null || Long.parseLong(term) < 0) {
        return Optional.of("is damaged (it holds " + properties + ")");
      }
      return Optional.empty();
    } catch (IOException | IllegalArgumentException e) {
      return Optional.of("cannot be read (" + e.getMessage() + ")");
    }
  }

  /** Writes {@code raft-meta} as Ratis does (term, no vote), never leaving a partial file in place. */
  private void writeMeta(long term) throws IOException {
    Path file = dir.metaFile();
    Path tmp = file.resolveSibling(file.getFileName() + ".recovering");
    Properties properties = new Properties();
    properties.setProperty("term", Long.toString(term));
    properties.setProperty("votedFor", "");
    try {
      try (FileChannel channel = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
              StandardOpenOption.WRITE);
          OutputStream out = Channels.newOutputStream(channel)) {
        properties.store(out, "rebuilt by Setpoint");
        out.flush();
        channel.force(true);
      }
      Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      try (FileChannel directory = FileChannel.open(file.getParent(), StandardOpenOption.READ)) {
        directory.force(true);
      }
    } catch (IOException e) {
      Files.deleteIfExists(tmp);
      throw new IOException("cannot rebuild " + file + " (" + e.getMessage() + "): free space on its disk"
          + " and start again", e);
    }
  }

  private void moveAside(Snapshot snapshot) throws IOException {
    for (Path file : List.of(snapshot.file(), snapshot.checksumFile())) {
      if (Files.exists(file)) {
        Files.move(file, file.resolveSibling(file.getFileName() + ASIDE), StandardCopyOption.REPLACE_EXISTING);
      }
    }
  }

  /** The last entry of the log, read as Ratis reads it (a last entry cut short by a crash does not count). */
  private Last last(List<Segment> segments) throws IOException {
    for (Segment segment : segments.reversed()) {
      LogEntryProto[] last = new LogEntryProto[1];
      read(segment, entry -> last[0] = entry);
      if (last[0] != null) {
        return new Last(last[0].getIndex(), last[0].getTerm());
      }
    }
    return null;
  }

  /**
   * Reads every log segment as Ratis does, for when Ratis failed to: the first one it cannot read,
   * as the message to refuse with.
   */
  Optional<String> damagedLog() {
    try {
      for (Segment segment : dir.segments()) {
        read(segment, entry -> {});
      }
      return Optional.empty();
    } catch (IOException e) {
      return Optional.of(e.getMessage());
    }
  }

  private void read(Segment segment, Consumer<LogEntryProto> entries) throws IOException {
    LogSegmentPath path = LogSegmentPath.matchLogSegment(segment.file());
    if (path == null) {
      return; // an empty open segment, which Ratis deletes
    }
    try {
      LogSegment.readSegmentFile(segment.file().toFile(), path.getStartEnd(), maxEntry, CorruptionPolicy.EXCEPTION,
          null, entries);
    } catch (IOException | RuntimeException e) {
      String where = e instanceof ChecksumException c ? " at byte " + c.getPos() : "";
      String cause = String.valueOf(e.getMessage());
      throw refusal("the log segment " + segment.file() + " is damaged" + where + ": " + cause
          + (cause.endsWith(".") ? "" : ".") + " Only a last entry cut short by a crash is dropped on start; a damaged entry may hold"
          + " acknowledged writes, so this member does not start.", e);
    }
  }

  private Start start(Snapshot snapshot, SnapshotFile.Contents contents) throws IOException {
    MD5Hash md5 = MD5FileUtil.readStoredMd5ForFile(snapshot.file().toFile());
    return new Start(
        new SingleFileSnapshotInfo(new FileInfo(snapshot.file(), md5), snapshot.term(), snapshot.index()), contents);
  }

  private IOException refusal(String problem) {
    return refusal(problem, null);
  }

  /** {@code problem}, that this member does not start for it, and what the operator can do. */
  private IOException refusal(String problem, Throwable cause) {
    String remedy = dir.members() > 1
        ? " The other members hold every acknowledged write: move " + config.dataDir() + " aside and start this"
            + " member with an empty data directory; it catches up from the leader."
        : " Restore " + config.dataDir() + " from a backup taken while the node was stopped.";
    return new IOException("not starting on " + config.dataDir() + ": " + problem + remedy, cause);
  }


  private static FileLock tryLock(FileChannel channel) throws IOException {
    try {
      return channel.tryLock();
    } catch (OverlappingFileLockException e) {
      return null; // this JVM holds it
    }
  }
}
