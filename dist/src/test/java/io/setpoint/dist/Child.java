package io.setpoint.dist;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;

/**
 * A process the tests start (an agent, a command), with its output in a file and an environment of
 * exactly what the test gives; closing it kills it if it still runs.
 */
final class Child implements AutoCloseable {
  /** How long a JVM on a busy two-core CI machine may take to start serving. */
  static final Duration START = Duration.ofSeconds(90);
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  private final Process process;
  private final Path log;

  private Child(Process process, Path log) {
    this.process = process;
    this.log = log;
  }

  /** Starts {@code command} in {@code cwd} with only {@code env}, both output streams into {@code log}. */
  static Child start(List<String> command, Path cwd, Map<String, String> env, Path log) throws IOException {
    ProcessBuilder builder = new ProcessBuilder(command).directory(cwd.toFile()).redirectErrorStream(true)
        .redirectOutput(log.toFile());
    builder.environment().clear();
    builder.environment().putAll(env);
    return new Child(builder.start(), log);
  }

  /** Runs {@code command} to its end (at most {@code timeout}) and gives its exit code and output. */
  static Exited run(List<String> command, Path cwd, Map<String, String> env, Duration timeout)
      throws IOException, InterruptedException {
    Path out = Files.createTempFile(cwd, "out", ".txt");
    Path err = Files.createTempFile(cwd, "err", ".txt");
    ProcessBuilder builder = new ProcessBuilder(command).directory(cwd.toFile())
        .redirectOutput(out.toFile()).redirectError(err.toFile());
    builder.environment().clear();
    builder.environment().putAll(env);
    Process process = builder.start();
    try {
      assertThat(process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS))
          .as("%s finished within %s", command, timeout).isTrue();
      return new Exited(process.exitValue(), Files.readString(out), Files.readString(err));
    } finally {
      process.destroyForcibly();
      Files.deleteIfExists(out);
      Files.deleteIfExists(err);
    }
  }

  /** What a finished command printed and returned. */
  record Exited(int code, String out, String err) {
    @Override
    public String toString() {
      return "exit " + code + "\nstdout:\n" + out + "\nstderr:\n" + err;
    }
  }

  /** Waits until {@code port}'s /readyz answers 200, failing early with the log if the process exits. */
  void awaitReady(int port) {
    URI readyz = URI.create("http://127.0.0.1:" + port + "/readyz");
    Awaitility.await("/readyz of the agent on port " + port).atMost(START).pollInterval(Duration.ofMillis(200))
        .ignoreExceptionsInstanceOf(IOException.class)
        .until(() -> {
          assertThat(process.isAlive()).as("the agent is running; its log:\n%s", log()).isTrue();
          HttpResponse<Void> response = HTTP.send(HttpRequest.newBuilder(readyz).timeout(Duration.ofSeconds(2)).build(),
              HttpResponse.BodyHandlers.discarding());
          return response.statusCode() == 200;
        });
  }

  /** Sends SIGTERM and waits for the exit; returns the exit code. */
  int terminate(Duration within) throws InterruptedException {
    process.destroy();
    assertThat(process.waitFor(within.toMillis(), TimeUnit.MILLISECONDS))
        .as("exited within %s of SIGTERM; its log:\n%s", within, log()).isTrue();
    return process.exitValue();
  }

  /** Everything the process printed so far. */
  String log() {
    try {
      return Files.readString(log, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** {@code count} distinct ports nobody listens on now (the agent binds them a moment later; a clash fails loudly). */
  static int[] freePorts(int count) throws IOException {
    ServerSocket[] sockets = new ServerSocket[count];
    try {
      int[] ports = new int[count];
      for (int i = 0; i < count; i++) {
        sockets[i] = new ServerSocket(0);
        ports[i] = sockets[i].getLocalPort();
      }
      return ports;
    } finally {
      for (ServerSocket socket : sockets) {
        if (socket != null) {
          socket.close();
        }
      }
    }
  }

  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      process.destroyForcibly();
      process.waitFor(10, TimeUnit.SECONDS);
    }
  }
}
