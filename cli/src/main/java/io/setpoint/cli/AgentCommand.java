package io.setpoint.cli;

import io.setpoint.demo.DemoControllers;
import io.setpoint.demo.DemoTypes;
import io.setpoint.server.agent.Agent;
import java.util.concurrent.Callable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code setpoint agent}: runs a server until interrupted. */
@Command(
    name = "agent",
    description = {
      "Runs a Setpoint agent: the resource service (gRPC, with server reflection) on one port.",
      "This version only has -dev mode: an in-memory store, the demo types and their controllers, no ACLs.",
      "Stops cleanly on SIGINT or SIGTERM."
    })
final class AgentCommand implements Callable<Integer> {
  private static final Logger log = LoggerFactory.getLogger(AgentCommand.class);

  @Spec private CommandSpec spec;

  @Option(names = "-dev", description = "Development mode: in-memory store (lost on exit), demo types, ACLs off.")
  private boolean dev;

  @Option(names = "-port", paramLabel = "PORT", defaultValue = "8500",
      description = "The gRPC port (default: ${DEFAULT-VALUE}; 0 picks a free one).")
  private int port;

  @Option(names = "-bind", paramLabel = "ADDRESS", defaultValue = "127.0.0.1",
      description = "The address to listen on (default: ${DEFAULT-VALUE}).")
  private String bind;

  @Option(names = "-no-demo-controllers",
      description = "Serve the demo types but do not run their controllers (run them elsewhere, e.g. io.setpoint.demo.RemoteControllers).")
  private boolean noDemoControllers;

  @Override
  public Integer call() {
    if (!dev) {
      throw new ParameterException(spec.commandLine(),
          "only -dev mode is available in this version (durable mode comes later): run 'setpoint agent -dev'");
    }
    if (port < 0 || port > 65535) {
      throw new ParameterException(spec.commandLine(), "-port must be within 0..65535, was " + port);
    }
    Agent agent;
    try {
      agent = Agent.builder().host(bind).port(port).types(DemoTypes::register)
          .controllers(noDemoControllers ? manager -> {} : DemoControllers::register).start();
    } catch (IllegalStateException e) {
      throw new CliException(e.getMessage(), e);
    }
    log.info("dev mode: in-memory store (data is lost on exit), demo types registered{}, ACLs off",
        noDemoControllers ? "" : " with their controllers");
    Thread shutdown = new Thread(agent::close, "setpoint-shutdown");
    Runtime.getRuntime().addShutdownHook(shutdown);
    try {
      agent.awaitTermination();
    } catch (InterruptedException e) {
      // Stopped by whoever runs us in-process (a test, an embedding): stop like on SIGINT.
      agent.close();
      Thread.currentThread().interrupt();
    } finally {
      try {
        Runtime.getRuntime().removeShutdownHook(shutdown);
      } catch (IllegalStateException alreadyShuttingDown) {
        // The hook is running or has run; nothing to undo.
      }
    }
    return 0;
  }
}
