package io.setpoint.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A helper process of a benchmark driven by lines: commands written to its stdin, answers read
 * from its stdout ({@link ShardMemberCommand}, {@link FloodClientCommand}). An answer is a line
 * that starts with an agreed word; the lines before it are skipped.
 */
record LineProcess(String name, Process process, Writer stdin, BlockingQueue<String> lines) {
  /** Starts {@code builder} (its stderr and environment as the caller set them) and reads its stdout. */
  static LineProcess start(String name, ProcessBuilder builder) throws IOException {
    Process process = builder.redirectOutput(ProcessBuilder.Redirect.PIPE).start();
    BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    Thread.ofVirtual().name("bench-" + name).start(() -> {
      try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
        String line;
        while ((line = in.readLine()) != null) {
          lines.add(line);
        }
      } catch (IOException e) {
        // the process ended
      }
    });
    return new LineProcess(name, process, new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8), lines);
  }

  /** Writes {@code command} and waits for the {@code answer}; see {@link #await}. */
  String ask(String command, String answer, Duration timeout) throws IOException, InterruptedException {
    stdin.write(command + "\n");
    stdin.flush();
    return await(answer, timeout);
  }

  /** The rest of the next line that is {@code answer} or starts with {@code answer} and a space. */
  String await(String answer, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      String line = lines.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      if (line == null) {
        throw new IllegalStateException(name + " did not answer " + answer + " within " + timeout
            + (process.isAlive() ? "" : " (it exited with code " + process.exitValue() + ")"));
      }
      if (line.equals(answer)) {
        return "";
      }
      if (line.startsWith(answer + " ")) {
        return line.substring(answer.length() + 1);
      }
    }
  }

  /** Closes its stdin, which asks it to finish, and waits up to {@code timeout} before killing it. */
  void finish(Duration timeout) throws IOException, InterruptedException {
    stdin.close();
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      process.destroyForcibly();
    }
  }
}
