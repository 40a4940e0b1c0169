package io.setpoint.bench;

import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Token A's flood in a process of its own ({@link FloodClientCommand}), started with the prefix
 * {@link CpuPinning} gives it: its client's CPU is then not the reader's, as with a flood from
 * another host. {@link #flood()} and {@link #stop()} may alternate (the warm-up, then the measured flood).
 */
final class FloodProcess implements AutoCloseable {
  /** Covers a JVM starting on a busy CPU, and the requests in flight when it stops. */
  private static final Duration ANSWER_TIMEOUT = Duration.ofSeconds(60);

  private final LineProcess process;

  private FloodProcess(LineProcess process) {
    this.process = process;
  }

  /** Starts the process, which sends nothing until {@link #flood()}. */
  static FloodProcess start(CpuPinning pinning, URI url, String secret, int clients) throws IOException {
    List<String> command = new ArrayList<>(pinning.floodPrefix());
    command.addAll(Bench.cliCommand(
        List.of("bench", "flood-client", "-url", url.toString(), "-clients", Integer.toString(clients))));
    ProcessBuilder builder = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT);
    builder.environment().put("SETPOINT_TOKEN", secret);
    return new FloodProcess(LineProcess.start("flood", builder));
  }

  long pid() {
    return process.process().pid();
  }

  /** Starts flooding; returns once the process has its clients sending. */
  void flood() throws IOException, InterruptedException {
    process.ask("start", "started", ANSWER_TIMEOUT);
  }

  /** Stops flooding and returns what the flood got since {@link #flood()}. */
  FloodHttp.Flooded stop() throws IOException, InterruptedException {
    return FloodHttp.Flooded.parse(process.ask("stop", FloodHttp.Flooded.ANSWER, ANSWER_TIMEOUT));
  }

  @Override
  public void close() throws IOException, InterruptedException {
    process.finish(Duration.ofSeconds(30));
  }
}
