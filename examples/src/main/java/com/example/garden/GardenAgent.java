package com.example.garden;

import io.setpoint.server.agent.Agent;
import java.util.List;

/**
 * A Setpoint agent embedded in this application: it serves the garden types (besides Setpoint's
 * own) and runs the plant controller, with an in-memory store and ACLs off, on
 * 127.0.0.1:{@code 8500}.
 *
 * <pre>
 * java -cp 'target/garden.jar:target/lib/*' com.example.garden.GardenAgent [-port N] [-no-controllers]
 * </pre>
 *
 * With {@code -no-controllers} it only serves the types, for {@link RemoteGarden} to run the
 * controller in its own JVM.
 */
public final class GardenAgent {
  private GardenAgent() {}

  public static void main(String[] args) throws InterruptedException {
    List<String> flags = List.of(args);
    int at = flags.indexOf("-port");
    int port = at >= 0 && at + 1 < flags.size() ? Integer.parseInt(flags.get(at + 1)) : 8500;
    Agent agent = start(port, !flags.contains("-no-controllers"));
    Runtime.getRuntime().addShutdownHook(new Thread(agent::close, "garden-agent-shutdown"));
    agent.awaitTermination();
  }

  // snippet:start start
  /** Starts an agent serving the garden types on {@code port} (0: a free one). */
  static Agent start(int port, boolean controllers) {
    return Agent.builder()
        .port(port)
        .acls(false) // development only: see docs/security.md to turn them on
        .types(GardenTypes::register)
        .controllers(manager -> {
          if (controllers) {
            manager.register(PlantController.controller());
          }
        })
        .start();
  }
  // snippet:end start
}
