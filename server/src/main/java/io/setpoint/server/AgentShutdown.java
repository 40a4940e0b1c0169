package io.setpoint.server;

import io.setpoint.controller.Manager;
import io.setpoint.storage.Backend;
import io.setpoint.storage.Replication;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The steps of stopping an agent, in order: its controllers, leadership handed to another member,
 * the port and the client connections closed with the watches ended, then the store, the
 * in-process API and the I/O threads. Each step is timed for the last log line.
 */
final class AgentShutdown {
  /** The agent's log, whose name operators configure and read. */
  private static final Logger log = LoggerFactory.getLogger(Agent.class);
  /** How long a stopping leader waits for another member to take over. */
  private static final Duration HANDOVER_TIMEOUT = Duration.ofSeconds(3);

  private final Manager manager;
  private final AccessControl access;
  private final RuntimeTypes runtimeTypes;
  private final Backend backend;
  private final ApiServer server;
  private final InProcessApi inProcess;
  private final MeterHistory history;

  AgentShutdown(Manager manager, AccessControl access, RuntimeTypes runtimeTypes, Backend backend, ApiServer server,
      InProcessApi inProcess, MeterHistory history) {
    this.history = history;
    this.manager = manager;
    this.access = access;
    this.runtimeTypes = runtimeTypes;
    this.backend = backend;
    this.server = server;
    this.inProcess = inProcess;
  }

  /** Runs the steps; once only ({@link Agent#close()} sees to that). */
  void run() {
    // Each step timed for the last line: a stop that takes seconds says which step took them.
    long start = System.nanoTime();
    history.close();
    manager.close();
    access.close();
    runtimeTypes.close();
    long controllersClosed = System.nanoTime();
    handOverLeadership();
    long handedOver = System.nanoTime();
    CompletableFuture<Void> serverStopped = server.beginStop();
    backend.closeWatches("this agent is stopping: watch again, on another member");
    server.awaitClosed(serverStopped);
    long connectionsClosed = System.nanoTime();
    backend.close();
    inProcess.close();
    long storeClosed = System.nanoTime();
    server.stopEventLoops();
    long end = System.nanoTime();
    log.info("Setpoint agent stopped in {} (controllers {}, leadership hand-over {}, connections {}, store {}, I/O threads {})",
        seconds(end - start), seconds(controllersClosed - start), seconds(handedOver - controllersClosed),
        seconds(connectionsClosed - handedOver), seconds(storeClosed - connectionsClosed), seconds(end - storeClosed));
  }

  /**
   * When this member leads a cluster with another member in reach, moves leadership there, so the
   * writes of the other members pause for a transfer rather than an election timeout.
   */
  private void handOverLeadership() {
    if (!(backend instanceof Replication replication) || !replication.isLeader()) {
      return;
    }
    try {
      if (replication.members().stream().anyMatch(m -> !m.leader() && !m.unreachable() && m.lastContact().isPresent())) {
        log.info("handing leadership over before stopping: {} leads now", replication.transferLeadership("", HANDOVER_TIMEOUT));
      }
    } catch (RuntimeException e) {
      log.warn("could not hand leadership over before stopping ({}); the others elect a leader", e.getMessage());
    }
  }

  private static String seconds(long nanos) {
    return String.format(Locale.ROOT, "%.2f s", nanos / 1e9);
  }
}
