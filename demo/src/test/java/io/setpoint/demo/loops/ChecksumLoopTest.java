package io.setpoint.demo.loops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.setpoint.controller.LoopRunner;
import io.setpoint.controller.time.ManualTicker;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The directory example: checksums follow files in real time (watch) and through lists alone. */
class ChecksumLoopTest {
  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final String EMPTY_SHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

  @TempDir Path dir;

  private String checksum(String name) throws IOException {
    Path sidecar = ChecksumLoop.sidecar(dir, name);
    return Files.exists(sidecar) ? Files.readString(sidecar).split(" ")[0] : null;
  }

  private String expected(String name) throws IOException {
    return ChecksumLoop.read(dir, name).orElseThrow().sha256();
  }

  @Test
  void checksumsFollowFilesAsTheyAreAddedChangedAndRemoved() throws Exception {
    Files.writeString(dir.resolve("before.txt"), "there before the loop");
    try (LoopRunner running = LoopRunner.start(ChecksumLoop.loop(dir, true, Duration.ofMinutes(10)))) {
      await().atMost(WAIT).until(() -> expected("before.txt").equals(checksum("before.txt")));

      // The resync is ten minutes away: only the watch can make these happen in time.
      Files.writeString(dir.resolve("empty.txt"), "");
      await().atMost(WAIT).until(() -> EMPTY_SHA256.equals(checksum("empty.txt")));

      Files.writeString(dir.resolve("empty.txt"), "not empty any more");
      await().atMost(WAIT).until(() -> expected("empty.txt").equals(checksum("empty.txt")));

      Files.delete(dir.resolve("before.txt"));
      await().atMost(WAIT).until(() -> checksum("before.txt") == null);
      assertThat(checksum("empty.txt")).isEqualTo(expected("empty.txt"));
    }
  }

  @Test
  void withoutAWatchListsFindNewAndVanishedFilesAndOrphansLeftWhileStopped() throws Exception {
    ManualTicker ticker = new ManualTicker();
    Files.writeString(dir.resolve("kept.txt"), "kept");
    // A checksum whose file was deleted while no loop ran: found by the list, handled as absent.
    Files.createDirectories(dir.resolve(ChecksumLoop.SIDECARS));
    Files.writeString(ChecksumLoop.sidecar(dir, "orphan.txt"), "0000  orphan.txt\n");

    try (LoopRunner running = LoopRunner.builder(ChecksumLoop.loop(dir, false, Duration.ofSeconds(30)))
        .ticker(ticker).start()) {
      await().atMost(WAIT).until(() -> expected("kept.txt").equals(checksum("kept.txt")));
      await().atMost(WAIT).until(() -> checksum("orphan.txt") == null);

      Files.writeString(dir.resolve("new.txt"), "new");
      Files.delete(dir.resolve("kept.txt"));
      ticker.advance(Duration.ofSeconds(30)); // the next list: "new.txt" appears, "kept.txt" vanished

      await().atMost(WAIT).until(() -> expected("new.txt").equals(checksum("new.txt")));
      await().atMost(WAIT).until(() -> checksum("kept.txt") == null);
    }
  }
}
