package io.setpoint.cli;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import io.setpoint.api.Types;
import io.setpoint.api.operator.v1.BackupHeader;
import io.setpoint.api.v1.Resource;
import io.setpoint.client.SetpointClient;
import io.setpoint.storage.BackupFile;
import io.setpoint.storage.raft.BackupRestore;
import io.setpoint.storage.raft.RaftConfig;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code setpoint snapshot}: backups of the store as snapshot files. */
@Command(
    name = "snapshot",
    description = "Saves the agent's store to a snapshot file, shows what one holds, and restores one into a new"
        + " data directory.",
    subcommands = {SnapshotCommand.Save.class, SnapshotCommand.Inspect.class, SnapshotCommand.Restore.class})
final class SnapshotCommand {

  /** Reads and checks a snapshot file, naming the file in any failure. */
  static BackupFile.Contents read(Path file) {
    try (InputStream in = new BufferedInputStream(Files.newInputStream(file), 1 << 16)) {
      return BackupFile.read(in);
    } catch (IOException e) {
      throw new CliException(file + ": " + e.getMessage(), e);
    }
  }

  /** Reads and checks a snapshot file, handing {@code each} resource over as it is read, without keeping them. */
  static BackupFile.Summary check(Path file, Consumer<ByteString> each) {
    try (InputStream in = new BufferedInputStream(Files.newInputStream(file), 1 << 16)) {
      return BackupFile.read(in, each);
    } catch (IOException e) {
      throw new CliException(file + ": " + e.getMessage(), e);
    }
  }

  /** {@code setpoint snapshot save FILE}. */
  @Command(name = "save", description = {
      "Saves a consistent copy of the agent's store to FILE while it keeps serving: every resource with its uid,"
          + " version, owner and statuses, the types added at runtime, ACL tokens and policies.",
      "The file is written beside FILE, checked against its checksum, then moved into place. Any member of a"
          + " cluster can be asked; it saves what it has applied. Needs operator:write, as the file holds every resource."})
  static final class Save implements Callable<Integer> {
    @Spec private CommandSpec spec;
    @Mixin private ClientOptions client;

    @Parameters(paramLabel = "FILE", description = "Where to save the snapshot.")
    private Path file;

    @Option(names = "-force", description = "Replace FILE if it exists.")
    private boolean force;

    @Override
    public Integer call() throws IOException {
      if (Files.exists(file) && !force) {
        throw new CliException(file + " exists; give -force to replace it");
      }
      Path partial = file.resolveSibling(file.getFileName() + ".partial");
      try {
        try (SetpointClient c = client.connect(spec.commandLine());
            OutputStream out = Files.newOutputStream(partial)) {
          c.saveSnapshot(out);
        }
        // Framing and checksum: the agent encoded every resource, so none is parsed again here.
        BackupFile.Summary saved = check(partial, resource -> {});
        Files.move(partial, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        BackupHeader h = saved.header();
        PrintWriter out = spec.commandLine().getOut();
        out.printf("saved %s: %d resources at revision %d from %s, sha256 %s%n",
            file, saved.count(), h.getRevision(), h.getNode(), saved.sha256());
        out.flush();
        return 0;
      } finally {
        Files.deleteIfExists(partial);
      }
    }
  }

  /** {@code setpoint snapshot inspect FILE}. */
  @Command(name = "inspect",
      description = "Checks a snapshot file against its checksum and prints what it holds: revision, source, and"
          + " resources per type.")
  static final class Inspect implements Callable<Integer> {
    @Spec private CommandSpec spec;

    @Parameters(paramLabel = "FILE", description = "The snapshot file.")
    private Path file;

    @Override
    public Integer call() {
      Map<String, Integer> perType = new TreeMap<>();
      BackupFile.Summary contents = check(file, encoded -> {
        Resource r;
        try {
          r = Resource.parseFrom(encoded);
        } catch (InvalidProtocolBufferException e) {
          throw new CliException(file + ": a resource does not parse: " + e.getMessage(), e);
        }
        perType.merge(Types.format(r.getId().getType()), 1, Integer::sum);
      });
      BackupHeader h = contents.header();
      PrintWriter out = spec.commandLine().getOut();
      out.printf("File:       %s%n", file);
      out.printf("Format:     %d%n", h.getFormat());
      out.printf("Revision:   %d%n", h.getRevision());
      out.printf("Taken:      %s from %s%n", Instant.ofEpochSecond(h.getTaken().getSeconds(), h.getTaken().getNanos()), h.getNode());
      out.printf("Resources:  %d%n", contents.count());
      out.printf("SHA-256:    %s (matches)%n%n", contents.sha256());
      Table table = new Table(List.of("TYPE", "RESOURCES"));
      perType.forEach((type, n) -> table.row(List.of(type, Integer.toString(n))));
      table.print(out);
      out.flush();
      return 0;
    }
  }

  /** {@code setpoint snapshot restore FILE -data-dir DIR}. */
  @Command(name = "restore", description = {
      "Prepares a new data directory from a snapshot file: 'setpoint agent -data-dir DIR' then starts a cluster of"
          + " one member whose store is the snapshot's, with the same revisions, uids, owners, statuses, types and"
          + " ACL tokens and policies. Run it while no agent uses -node's Raft port: it starts the member once to"
          + " lay the directory out."})
  static final class Restore implements Callable<Integer> {
    @Spec private CommandSpec spec;

    @Parameters(paramLabel = "FILE", description = "The snapshot file.")
    private Path file;

    @Option(names = "-data-dir", paramLabel = "DIR", required = true,
        description = "The data directory to create; it must not exist or be empty.")
    private Path dataDir;

    @Option(names = "-node", paramLabel = "NAME", defaultValue = AgentCommand.DEFAULT_NODE,
        description = "The member's node name (default: ${DEFAULT-VALUE}).")
    private String node;

    @Option(names = "-raft-port", paramLabel = "PORT", defaultValue = AgentCommand.DEFAULT_RAFT_PORT,
        description = "The member's Raft port (default: ${DEFAULT-VALUE}).")
    private int raftPort;

    @Option(names = "-port", paramLabel = "PORT", defaultValue = AgentCommand.DEFAULT_PORT,
        description = "The API port the agent listens on when started with only -data-dir (default: ${DEFAULT-VALUE}).")
    private int port;

    @Option(names = "-bind", paramLabel = "ADDRESS", defaultValue = AgentCommand.DEFAULT_BIND,
        description = "The address the agent listens on when started with only -data-dir (default: ${DEFAULT-VALUE}).")
    private String bind;

    @Override
    public Integer call() {
      BackupFile.Contents contents = read(file);
      try {
        BackupRestore.restore(contents, RaftConfig.of(node, dataDir, raftPort, Map.of(node, bind + ":" + raftPort)));
      } catch (IllegalArgumentException | IllegalStateException | UncheckedIOException e) {
        throw new CliException(e.getMessage(), e);
      }
      new MemberFile(node, bind, port, raftPort).write(dataDir);
      PrintWriter out = spec.commandLine().getOut();
      out.printf("restored %d resources at revision %d into %s as node %s; start it with: setpoint agent -data-dir %s%n",
          contents.encoded().size(), contents.header().getRevision(), dataDir, node, dataDir);
      out.flush();
      return 0;
    }
  }
}
