package io.setpoint.cli;

import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Properties;

/**
 * What a durable agent was started as, kept in its data directory ({@value #NAME}): its node name,
 * address, API port and Raft port. A member restarted with only {@code -data-dir} takes them
 * from here; the Raft port cannot change, because the other members know the member by it.
 */
record MemberFile(String node, String bind, int port, int raftPort) {
  static final String NAME = "setpoint-member.properties";

  /** The file of {@code dataDir}, or null when there is none yet. */
  static MemberFile read(Path dataDir) {
    Path file = dataDir.resolve(NAME);
    if (!Files.isRegularFile(file)) {
      return null;
    }
    Properties p = new Properties();
    try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      p.load(in);
      return new MemberFile(required(p, "node", file), required(p, "bind", file),
          Integer.parseInt(required(p, "port", file)), Integer.parseInt(required(p, "raft-port", file)));
    } catch (IOException | NumberFormatException e) {
      throw new CliException("cannot read " + file + ": " + e.getMessage()
          + "; fix it, or delete it and give -node, -bind, -port and -raft-port", e);
    }
  }

  private static String required(Properties p, String key, Path file) {
    String value = p.getProperty(key);
    if (value == null || value.isBlank()) {
      throw new CliException(file + " has no " + key + "; fix it, or delete it and give -node, -bind, -port and -raft-port");
    }
    return value.strip();
  }

  /** Writes the file into {@code dataDir}, replacing it whole. */
  void write(Path dataDir) {
    Properties p = new Properties();
    p.setProperty("node", node);
    p.setProperty("bind", bind);
    p.setProperty("port", Integer.toString(port));
    p.setProperty("raft-port", Integer.toString(raftPort));
    Path file = dataDir.resolve(NAME);
    Path temp = dataDir.resolve(NAME + ".tmp");
    try {
      try (Writer out = Files.newBufferedWriter(temp, StandardCharsets.UTF_8)) {
        p.store(out, "How this member was started; a restart with only -data-dir uses these");
      }
      Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new CliException("cannot write " + file + ": " + e.getMessage(), e);
    }
  }
}
