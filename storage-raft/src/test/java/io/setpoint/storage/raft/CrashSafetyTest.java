package io.setpoint.storage.raft;

import static io.setpoint.storage.raft.MemberProcesses.readAcks;
import static io.setpoint.storage.raft.MemberProcesses.reader;
import static org.assertj.core.api.Assertions.assertThat;

import io.setpoint.testkit.FreePorts;
import java.io.BufferedReader;
import java.nio.file.Path;
import java.util.HashMap;
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

  @Test
  // A separate thread, so that the timeout also ends a read blocked on a child's output.
  @Timeout(value = 90, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void everyAcknowledgedWriteSurvivesSigkill() throws Exception {
    Path data = dir.resolve("data");
    int port = FreePorts.loopback();
    Map<String, String> acked = new HashMap<>();
    try (MemberProcesses members = new MemberProcesses(dir)) {
      for (int round = 0; round < 3; round++) {
        Process writer = members.start("write", data, port);
        readAcks(reader(writer), acked, 300 * (round + 1));
        writer.destroyForcibly(); // SIGKILL: no shutdown hook, no flush, no snapshot on stop
        assertThat(writer.waitFor(20, TimeUnit.SECONDS)).isTrue();
      }

      Process dump = members.start("dump", data, port);
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
    }
  }
}
