package io.setpoint.cli;

import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.setpoint.server.Agent;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.slf4j.LoggerFactory;

/**
 * {@code setpoint agent} run in-process by a test: captures the agent's log (so the test output
 * stays quiet and the port it listens on can be read from it), and stops the agent after the test.
 */
final class CliAgent implements BeforeEachCallback, AfterEachCallback {
  private static final Pattern LISTENING =
      Pattern.compile("Setpoint agent listening on 127\\.0\\.0\\.1:(\\d+) \\(gRPC, HTTP/JSON under /api\\).*");

  private final Logger agentLog = (Logger) LoggerFactory.getLogger(Agent.class);
  private final ListAppender<ILoggingEvent> logged = new ListAppender<>();
  private Level previousLevel;
  private CliRun run;

  @Override
  public void beforeEach(ExtensionContext context) {
    previousLevel = agentLog.getLevel();
    agentLog.setLevel(Level.INFO);
    agentLog.setAdditive(false);
    logged.start();
    agentLog.addAppender(logged);
  }

  @Override
  public void afterEach(ExtensionContext context) throws InterruptedException {
    if (run != null && run.code() == null) {
      run.interruptAndJoin();
    }
    agentLog.detachAppender(logged);
    agentLog.setLevel(previousLevel);
    agentLog.setAdditive(true);
  }

  /** Starts the command {@code args} (forgetting what earlier runs logged) and returns its port. */
  int start(String... args) {
    logged.list.clear();
    run = CliRun.start(args);
    return await().atMost(Duration.ofSeconds(60))
        .failFast("the agent command ended", () -> run.code() != null)
        .until(this::listeningPort, Optional::isPresent).orElseThrow();
  }

  /** Interrupts the running command, as SIGINT would, and waits for it to end. */
  void stop() throws InterruptedException {
    run.interruptAndJoin();
  }

  /** The last command started. */
  CliRun run() {
    return run;
  }

  /** What the agent logged since the last start. */
  List<String> messages() {
    return logged.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
  }

  private Optional<Integer> listeningPort() {
    return messages().stream()
        .map(LISTENING::matcher)
        .filter(Matcher::matches)
        .map(m -> Integer.parseInt(m.group(1)))
        .findFirst();
  }
}
