package io.setpoint.loadgen.chaos;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * Which member opened a loopback TCP connection, read from Linux's {@code /proc}: the socket
 * whose local port is the connection's source port names an inode, and the member process holding
 * a descriptor of that inode opened it. Only for the proxies of {@link Network}, and only on Linux.
 */
final class SocketOwners {
  private static final List<Path> TABLES = List.of(Path.of("/proc/net/tcp"), Path.of("/proc/net/tcp6"));

  private final Supplier<List<Long>> pids;

  SocketOwners(Supplier<List<Long>> pids) {
    this.pids = pids;
  }

  /** The member (index into the pids) whose socket from {@code sourcePort} to {@code destinationPort} this is; -1 if none. */
  int member(int sourcePort, int destinationPort) {
    String inode = inode(sourcePort, destinationPort);
    if (inode == null) {
      return -1;
    }
    String target = "socket:[" + inode + "]";
    List<Long> members = pids.get();
    for (int i = 0; i < members.size(); i++) {
      try (DirectoryStream<Path> fds = Files.newDirectoryStream(Path.of("/proc", members.get(i).toString(), "fd"))) {
        for (Path fd : fds) {
          try {
            if (Files.readSymbolicLink(fd).toString().equals(target)) {
              return i;
            }
          } catch (IOException e) {
            // Closed while we looked: not the one.
          }
        }
      } catch (IOException e) {
        // This member is not running now.
      }
    }
    return -1;
  }

  /** The inode of the socket with local port {@code local} and remote port {@code remote}. */
  private static String inode(int local, int remote) {
    String localHex = String.format(Locale.ROOT, ":%04X", local);
    String remoteHex = String.format(Locale.ROOT, ":%04X", remote);
    for (Path table : TABLES) {
      try {
        for (String line : Files.readAllLines(table)) {
          String[] f = line.trim().split("\\s+");
          // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
          if (f.length > 9 && f[1].endsWith(localHex) && f[2].endsWith(remoteHex)) {
            return f[9];
          }
        }
      } catch (IOException e) {
        // No such table here (no IPv6, or not Linux).
      }
    }
    return null;
  }
}
