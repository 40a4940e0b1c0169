package io.setpoint.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/** What Linux says about a server from outside it: its resident memory, and its files' size on disk. */
final class OsProbes {
  private OsProbes() {}

  /** The resident memory of process {@code pid} in bytes: {@code VmRSS} in {@code /proc/PID/status}. */
  static long rss(long pid) throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
      if (line.startsWith("VmRSS:")) {
        String[] fields = line.substring("VmRSS:".length()).trim().split("\\s+");
        if (fields.length == 2 && fields[1].equals("kB")) {
          return Long.parseLong(fields[0]) * 1024;
        }
      }
    }
    throw new IOException("/proc/" + pid + "/status has no VmRSS in kB");
  }

  /**
   * The bytes {@code dir} takes on disk, blocks allocated rather than the files' lengths ({@code du
   * -s -B1}): preallocated files count whole, sparse ones only where written. Tried three times, as
   * a server may delete a file (a purged log segment) while du walks the directory.
   */
  static long diskUsage(Path dir) throws IOException, InterruptedException {
    List<String> command = List.of("du", "-s", "-B1", dir.toString());
    for (int attempt = 1; ; attempt++) {
      try {
        Bench.Ran du = Bench.run(String.join(" ", command), command, Duration.ofMinutes(2));
        return Long.parseLong(du.output().trim().split("\\s+")[0]);
      } catch (IllegalStateException | NumberFormatException e) {
        if (attempt == 3) {
          throw new IOException("cannot tell the size of " + dir + ": " + e.getMessage(), e);
        }
      }
    }
  }
}
