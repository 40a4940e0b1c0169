package io.setpoint.storage.raft;

import static org.assertj.core.api.Assertions.assertThat;

import io.setpoint.testkit.FreePorts;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A member killed with SIGKILL while it acknowledges concurrent writes keeps every write it
 * acknowledged: after a restart on the same data directory each is there, at its version.
 */
class CrashSafetyTest {
  @TempDir Path dir;

  private final List<Process> processes = new ArrayList<>();

  private Process member(String mode, Path dataDir, int port) throws IOException {
    String java = ProcessHandle.current().info().command().orElse("java");
    Process p =
        new ProcessBuilder(
                java,
                "-cp",
                System.getProperty("java.class.path"),
                MemberProcess.class.getName(),
                mode,
                dataDir.toString(),
                Integer.toString(port))
            .redirectError(dir.resolve(mode + "-" + processes.size() + ".log").toFile())
            .start();
    processes.add(p);
    return p;
  }

  @Test
  // A separate thread, so that the timeout also ends a read blocked on a child's output.
  @Timeout(value = 90, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void everyAcknowledgedWriteSurvivesSigkill() throws Exception {
    Path data = dir.resolve("data");
    int port = FreePorts.loopback();
    Map<String, String> acked = new HashMap<>();
    try {
      for (int round = 0; round < 3; round++) {
        Process writer = member("write", data, port);
        readAcks(writer, acked, 300 * (round + 1));
        writer.destroyForcibly(); // SIGKILL: no shutdown hook, no flush, no snapshot on stop
        assertThat(writer.waitFor(20, TimeUnit.SECONDS)).isTrue();
      }

      Process dump = member("dump", data, port);
      Map<String, String> stored = new HashMap<>();
      try (BufferedReader in = reader(dump)) {
        String line;
        while ((line = in.readLine()) != null && !line.equals("DONE")) {
          String[] parts = line.split(" ");
          stored.put(parts[1], parts[2]);
        }
        assertThat(line).as("the restarted member listed its store; see %s", dir).isEqualTo("DONE");
      }
      assertThat(dump.waitFor(20, TimeUnit.SECONDS)).isTrue();
      assertThat(acked).hasSizeGreaterThanOrEqualTo(900);
      assertThat(stored).containsAllEntriesOf(acked);
    } finally {
      processes.forEach(Process::destroyForcibly);
    }
  }

  /** Reads acknowledgements until {@code total} writes in all were acknowledged. */
  private static void readAcks(Process writer, Map<String, String> acked, int total) throws IOException {
    BufferedReader in = reader(writer);
    while (acked.size() < total) {
      String line = in.readLine();
      assertThat(line).as("the writer exited before %d acknowledgements", total).isNotNull();
      String[] parts = line.split(" ");
      acked.put(parts[1], parts[2]);
    }
  }

  private static BufferedReader reader(Process p) {
    return new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
  }
}
