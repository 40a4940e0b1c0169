package io.setpoint.cli;

import java.io.ByteArrayInputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * One in-process run of the command line with captured output. {@link #start} runs it on its own
 * thread for the commands that only end when interrupted.
 */
public final class CliRun {
  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();
  private final String stdin;
  private final Map<String, String> env;
  private final String[] args;
  private volatile Integer code;
  private Thread thread;

  private CliRun(String stdin, Map<String, String> env, String[] args) {
    this.stdin = stdin;
    this.env = env;
    this.args = args;
  }

  /** Runs {@code args} to completion with {@code stdin} as standard input. */
  public static CliRun runWithStdin(String stdin, String... args) {
    CliRun run = new CliRun(stdin, System.getenv(), args);
    run.execute();
    return run;
  }

  /** Runs {@code args} to completion with {@code env} as the agent's environment, instead of this JVM's. */
  public static CliRun runWithEnv(Map<String, String> env, String... args) {
    CliRun run = new CliRun("", env, args);
    run.execute();
    return run;
  }

  /** Runs {@code args} to completion with empty standard input. */
  public static CliRun run(String... args) {
    return runWithStdin("", args);
  }

  /** Starts {@code args} on a new thread; stop it with {@link #interruptAndJoin()}. */
  public static CliRun start(String... args) {
    CliRun run = new CliRun("", System.getenv(), args);
    run.thread = Thread.ofPlatform().name("cli-" + args[0]).start(run::execute);
    return run;
  }

  private void execute() {
    var cmd = Main.commandLine(new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)), env, args);
    cmd.setOut(new PrintWriter(out, true));
    cmd.setErr(new PrintWriter(err, true));
    code = cmd.execute(args);
  }

  /** Interrupts the run's thread and waits (at most 10 seconds) for it to end. */
  public CliRun interruptAndJoin() throws InterruptedException {
    thread.interrupt();
    thread.join(10_000);
    if (thread.isAlive()) {
      throw new AssertionError("the command did not stop within 10 seconds of an interrupt; output so far:\n" + out);
    }
    return this;
  }

  /** The exit code, or null while still running. */
  public Integer code() {
    return code;
  }

  public String out() {
    return out.toString();
  }

  public String err() {
    return err.toString();
  }

  @Override
  public String toString() {
    return "exit " + code + "\n--- stdout\n" + out + "--- stderr\n" + err;
  }
}
