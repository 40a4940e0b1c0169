package io.setpoint.testkit;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * A small tmpfs mounted by a test, to fill a disk for real: writes to it fail with "No space left
 * on device" once it is full. Mounting needs root; where it is not allowed the test is skipped
 * (assumption), saying why, except under CI (environment {@code CI=true}), where it fails.
 */
public final class Tmpfs implements AutoCloseable {
  private final Path mountPoint;

  private Tmpfs(Path mountPoint) {
    this.mountPoint = mountPoint;
  }

  /** Mounts a tmpfs of {@code megabytes} MiB at {@code mountPoint} (an empty directory). */
  public static Tmpfs mount(Path mountPoint, int megabytes) {
    String out = run(List.of("mount", "-t", "tmpfs", "-o", "size=" + megabytes + "m", "tmpfs", mountPoint.toString()));
    if (out != null && "true".equals(System.getenv("CI"))) {
      // CI runs as root, so there a test that cannot mount has found a broken machine, not a reason to skip.
      throw new IllegalStateException("CI cannot mount a test tmpfs: " + out);
    }
    assumeTrue(out == null, () -> "a test tmpfs cannot be mounted here (needs root): " + out);
    return new Tmpfs(mountPoint);
  }

  /** Where it is mounted. */
  public Path path() {
    return mountPoint;
  }

  /**
   * Writes {@code file} until the tmpfs is full.
   *
   * @return how many bytes it took
   */
  public long fill(Path file) {
    byte[] chunk = new byte[64 << 10];
    long written = 0;
    try (OutputStream out = Files.newOutputStream(file)) {
      for (;;) {
        out.write(chunk);
        written += chunk.length;
      }
    } catch (IOException e) {
      if (!String.valueOf(e.getMessage()).contains("No space left on device")) {
        throw new UncheckedIOException("filling " + file + " failed otherwise than by a full disk", e);
      }
    }
    return written;
  }

  /** Unmounts it (lazily, in case a file is still open), dropping everything on it. */
  @Override
  public void close() {
    String out = run(List.of("umount", "-l", mountPoint.toString()));
    if (out != null) {
      throw new IllegalStateException("cannot unmount " + mountPoint + ": " + out);
    }
  }

  /** Null when {@code command} succeeds, else its output. */
  private static String run(List<String> command) {
    try {
      Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
      String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      return process.waitFor() == 0 ? null : command + " exited " + process.exitValue() + ": " + out;
    } catch (IOException e) {
      return command + " cannot run: " + e.getMessage();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return command + " interrupted";
    }
  }
}
