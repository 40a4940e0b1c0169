package io.setpoint.storage.raft;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.OptionalInt;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.statemachine.impl.SimpleStateMachineStorage;
import org.apache.ratis.util.MD5FileUtil;

/**
 * The files Ratis keeps for this member under its data directory, {@code DIR/<group id>/}: in
 * {@code current/}, {@code raft-meta} (the term and vote), {@code raft-meta.conf} (the membership)
 * and the log segments ({@code log_S-E} closed, {@code log_inprogress_S} open, {@code S} and
 * {@code E} the first and last index they hold); in {@code sm/}, the snapshots ({@code
 * snapshot.T_I}, as of log index {@code I} of term {@code T}) each with its checksum {@code
 * snapshot.T_I.md5}. Only lists and names them; {@link StartupCheck} decides what they mean.
 */
final class DataDirectory {
  private static final Pattern CLOSED_SEGMENT = Pattern.compile("log_(\\d+)-(\\d+)");
  private static final Pattern OPEN_SEGMENT = Pattern.compile("log_inprogress_(\\d+)");

  /** A log segment file; {@code end} is -1 for the open one, whose end only its contents tell. */
  record Segment(Path file, long start, long end) {
    boolean open() {
      return end < 0;
    }
  }

  /** A snapshot file, by the log position its name gives. */
  record Snapshot(Path file, long term, long index) {
    Path checksumFile() {
      return MD5FileUtil.getDigestFileForFile(file.toFile()).toPath();
    }
  }

  private final Path group;
  private final int configuredMembers;

  DataDirectory(RaftConfig config) {
    this.group = config.dataDir().resolve(RatisSettings.GROUP_ID.getUuid().toString());
    this.configuredMembers = config.peers().size();
  }

  /** How many members the cluster has, as Ratis recorded it here, else as configured. */
  int members() {
    return recordedMembers().orElse(configuredMembers);
  }

  /** Where Ratis keeps this group: the directory to move aside or restore as a whole. */
  Path group() {
    return group;
  }

  Path current() {
    return group.resolve("current");
  }

  Path snapshotDir() {
    return group.resolve("sm");
  }

  Path metaFile() {
    return current().resolve("raft-meta");
  }

  /** True when Ratis has nothing here yet (it formats the directory). */
  boolean isNew() throws IOException {
    return isEmpty(current()) && snapshots().isEmpty();
  }

  /** The log segments, oldest first. */
  List<Segment> segments() throws IOException {
    List<Segment> segments = new ArrayList<>();
    for (Path file : list(current())) {
      String name = file.getFileName().toString();
      Matcher closed = CLOSED_SEGMENT.matcher(name);
      Matcher open = OPEN_SEGMENT.matcher(name);
      if (closed.matches()) {
        segments.add(new Segment(file, Long.parseLong(closed.group(1)), Long.parseLong(closed.group(2))));
      } else if (open.matches() && Files.size(file) > 0) {
        // Ratis deletes an empty open segment when it starts: it holds nothing.
        segments.add(new Segment(file, Long.parseLong(open.group(1)), -1));
      }
    }
    segments.sort(Comparator.comparingLong(Segment::start));
    return segments;
  }

  /** The snapshot files, newest first. */
  List<Snapshot> snapshots() throws IOException {
    List<Snapshot> snapshots = new ArrayList<>();
    for (Path file : list(snapshotDir())) {
      Matcher m = SimpleStateMachineStorage.SNAPSHOT_REGEX.matcher(file.getFileName().toString());
      if (m.matches()) {
        snapshots.add(new Snapshot(file, Long.parseLong(m.group(1)), Long.parseLong(m.group(2))));
      }
    }
    snapshots.sort(Comparator.comparingLong(Snapshot::index).reversed());
    return snapshots;
  }

  /**
   * How many members the latest membership Ratis recorded has, if {@code raft-meta.conf} holds
   * one. It is written with every configuration entry, so it outlives the {@code -cluster} flag.
   */
  private OptionalInt recordedMembers() {
    Path file = current().resolve("raft-meta.conf");
    if (!Files.isRegularFile(file)) {
      return OptionalInt.empty();
    }
    try (InputStream in = Files.newInputStream(file)) {
      LogEntryProto entry = LogEntryProto.parseFrom(in);
      return entry.hasConfigurationEntry()
          ? OptionalInt.of(entry.getConfigurationEntry().getPeersCount())
          : OptionalInt.empty();
    } catch (IOException e) {
      return OptionalInt.empty();
    }
  }

  private static boolean isEmpty(Path dir) throws IOException {
    return list(dir).isEmpty();
  }

  private static List<Path> list(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    try (Stream<Path> files = Files.list(dir)) {
      return files.toList();
    }
  }
}
