package io.setpoint.storage.raft;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The {@link MemberProcess}es a test starts, each logging to a file of its own under one
 * directory; closing kills whichever are still running.
 */
final class MemberProcesses implements AutoCloseable {
  private final Path logs;
  private final List<Process> started = new ArrayList<>();

  MemberProcesses(Path logs) {
    this.logs = logs;
  }

  /** Starts {@code MemberProcess mode dataDir port}, its stderr in this directory. */
  Process start(String mode, Path dataDir, int port) throws IOException {
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
            .redirectError(logs.resolve(mode + "-" + started.size() + ".log").toFile())
            .start();
    started.add(p);
    return p;
  }

  /** Reads a writer's acknowledgements into {@code acked} (name to version) until it holds {@code total}. */
  static void readAcks(BufferedReader in, Map<String, String> acked, int total) throws IOException {
    while (acked.size() < total) {
      String line = in.readLine();
      assertThat(line).as("the writer exited before %d acknowledgements", total).isNotNull();
      String[] parts = line.split(" ");
      acked.put(parts[1], parts[2]);
    }
  }

  static BufferedReader reader(Process p) {
    return new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
  }

  @Override
  public void close() {
    started.forEach(Process::destroyForcibly);
  }
}
