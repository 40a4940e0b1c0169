package io.setpoint.loadgen;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.concurrent.TimeUnit;

/** One server the generator started: an OS process whose output goes to a log file. */
final class ServerProcess implements AutoCloseable {
  private static final Duration GRACE = Duration.ofSeconds(3);
  private static final Duration POLL = Duration.ofMillis(10);

  private final String name;
  private final List<String> command;
  private final Process process;
  private final Path log;
  /** Whether it was sent SIGSTOP and not SIGCONT since: stopping it must wake it first. */
  private volatile boolean paused;

  private ServerProcess(String name, List<String> command, Process process, Path log) {
    this.name = name;
    this.command = List.copyOf(command);
    this.process = process;
    this.log = log;
  }

  /** Starts {@code command} with stdout and stderr appended to {@code log}. */
  static ServerProcess start(String name, List<String> command, Path log) {
    try {
      Process process = new ProcessBuilder(command)
          .redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
          .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
          .start();
      return new ServerProcess(name, command, process, log);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + name + " (" + String.join(" ", command) + ")", e);
    }
  }

  String name() {
    return name;
  }

  /** The same command started again, its output appended to the same log. */
  ServerProcess restart() {
    return start(name, command, log);
  }

  /** {@code edited} (this process's command changed) started in its place, its output appended to the same log. */
  ServerProcess restart(UnaryOperator<List<String>> edited) {
    return start(name, edited.apply(command), log);
  }

  List<String> command() {
    return command;
  }

  /** SIGKILL, and waits (at most 10 seconds) until it has exited. */
  void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(10, TimeUnit.SECONDS);
    paused = false;
  }

  /** SIGSTOP (true) or SIGCONT (false), through kill(1): Java cannot send either itself. */
  void pause(boolean stop) throws InterruptedException {
    try {
      Process kill = new ProcessBuilder("kill", stop ? "-STOP" : "-CONT", Long.toString(process.pid()))
          .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
      if (!kill.waitFor(5, TimeUnit.SECONDS) || kill.exitValue() != 0) {
        throw new IllegalStateException("kill " + (stop ? "-STOP " : "-CONT ") + process.pid() + " failed");
      }
      paused = stop;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run kill(1)", e);
    }
  }

  long pid() {
    return process.pid();
  }

  boolean isAlive() {
    return process.isAlive();
  }

  /**
   * Polls {@code url} until it answers 200; fails at once, with the end of the log, if the
   * process exits first, and after {@code timeout} otherwise. Its connection is closed when it
   * returns, so that what a benchmark measures next does not depend on it.
   */
  void awaitHttpOk(URI url, Duration timeout) throws InterruptedException {
    try (HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build()) {
      poll(http, url, timeout);
    }
  }

  private void poll(HttpClient http, URI url, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    String last = "no answer";
    HttpRequest request = HttpRequest.newBuilder(url).timeout(Duration.ofSeconds(2)).GET().build();
    for (;;) {
      if (!process.isAlive()) {
        throw new IllegalStateException(name + " exited with code " + process.exitValue()
            + " before it was ready; the end of its log (" + log + "):\n" + logTail(30));
      }
      try {
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() == 200) {
          return;
        }
        last = "HTTP " + response.statusCode() + " " + response.body().strip();
      } catch (IOException e) {
        last = e.toString();
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(name + " not ready at " + url + " after " + timeout + " (" + last
            + "); the end of its log (" + log + "):\n" + logTail(30));
      }
      // Often enough that a start time read from this is accurate to about a hundredth of a second.
      Thread.sleep(POLL.toMillis());
    }
  }

  /** The last {@code lines} lines of the log. */
  String logTail(int lines) {
    try {
      List<String> all = Files.readAllLines(log, StandardCharsets.UTF_8);
      return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    } catch (IOException | UncheckedIOException e) {
      return "(cannot read " + log + ": " + e + ")";
    }
  }

  /**
   * SIGTERM, then SIGKILL if it has not exited within {@link #GRACE}: its data is thrown away, and
   * an etcd leader whose peers stopped first would otherwise spend seconds trying to hand over its
   * leadership. Idempotent.
   *
   * @return whether it exited by itself after SIGTERM (or had exited already)
   */
  boolean stop() {
    return stop(GRACE);
  }

  /** {@link #stop()} with SIGKILL after {@code grace}. */
  boolean stop(Duration grace) {
    if (!process.isAlive()) {
      return true;
    }
    if (paused) {
      try {
        pause(false); // a stopped process would take SIGTERM only once continued
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } catch (RuntimeException e) {
        // It may have exited meanwhile; SIGKILL below ends it either way.
      }
    }
    process.destroy();
    boolean exited = false;
    try {
      exited = process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS);
      if (!exited) {
        process.destroyForcibly();
        process.waitFor(5, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
    return exited;
  }

  /** {@link #stop()}. */
  @Override
  public void close() {
    stop();
  }
}
