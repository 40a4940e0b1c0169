package io.setpoint.loadgen.chaos;

import io.setpoint.loadgen.AgentProcess;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A disk of its own for each member's data directory, to fill for real: a tmpfs mounted there, so
 * that once it is full the member's writes fail with "No space left on device" as on a full disk.
 * Chosen over filling the machine's disk, which every member and the suite share. Mounting needs
 * root.
 */
final class Disks implements AgentProcess.DataDirs, AutoCloseable {
  /** Each member's disk: room for a long run's log and snapshots; only what is written takes memory. */
  static final int MEGABYTES = 512;
  private static final String BALLAST = "chaos-ballast";

  private final Map<Integer, Path> mounted = new ConcurrentHashMap<>();
  private final Thread unmountOnExit = new Thread(this::unmountAll, "chaos-unmount");

  Disks() {
    Runtime.getRuntime().addShutdownHook(unmountOnExit);
  }

  @Override
  public void prepare(int member, Path dir) {
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot make " + dir, e);
    }
    String failed = run(List.of("mount", "-t", "tmpfs", "-o", "size=" + MEGABYTES + "m", "tmpfs", dir.toString()));
    if (failed != null) {
      throw new IllegalStateException("full-disk gives each member a tmpfs to fill, and mounting one needs root: " + failed);
    }
    mounted.put(member, dir);
  }

  /**
   * Fills member {@code member}'s disk with a file of ballast until writing fails for want of
   * space, and says how many MiB it took.
   */
  long fill(int member) {
    Path ballast = disk(member).resolve(BALLAST);
    byte[] chunk = new byte[1 << 20];
    long written = 0;
    try (OutputStream out = Files.newOutputStream(ballast)) {
      for (;;) {
        out.write(chunk);
        written += chunk.length;
      }
    } catch (IOException e) {
      if (!String.valueOf(e.getMessage()).contains("No space left on device")) {
        throw new UncheckedIOException("filling " + ballast + " failed otherwise than by a full disk", e);
      }
    }
    return written >> 20;
  }

  /** Deletes the ballast {@link #fill} wrote on member {@code member}'s disk. */
  void free(int member) {
    try {
      Files.deleteIfExists(disk(member).resolve(BALLAST));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot free " + Members.name(member) + "'s disk", e);
    }
  }

  private Path disk(int member) {
    Path dir = mounted.get(member);
    if (dir == null) {
      throw new IllegalStateException(Members.name(member) + " has no disk of its own");
    }
    return dir;
  }

  /** Unmounts every disk (lazily, in case a file on it is still open), dropping what it held. */
  @Override
  public void close() {
    unmountAll();
    try {
      Runtime.getRuntime().removeShutdownHook(unmountOnExit);
    } catch (IllegalStateException exiting) {
      // The JVM is exiting, and the hook has run or is running.
    }
  }

  private void unmountAll() {
    mounted.forEach((member, dir) -> {
      if (mounted.remove(member, dir)) {
        run(List.of("umount", "-l", dir.toString()));
      }
    });
  }

  /** Null when {@code command} succeeds, else what it said. */
  private static String run(List<String> command) {
    try {
      Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
      String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
      return process.waitFor() == 0 ? null : String.join(" ", command) + " exited " + process.exitValue() + ": " + out;
    } catch (IOException e) {
      return String.join(" ", command) + " cannot run: " + e.getMessage();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return String.join(" ", command) + " interrupted";
    }
  }
}
