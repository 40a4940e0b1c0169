package com.example.garden;

import io.setpoint.server.Agent;

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
    Agent agent;
    try {
      agent = start(args);
    } catch (IllegalArgumentException | IllegalStateException e) {
      // A bad flag or port, or a port in use: one line and the usage, no stack trace.
      System.err.println("garden: " + e.getMessage() + "\nusage: GardenAgent [-port N] [-no-controllers]");
      System.exit(2);
      return;
    }
    Runtime.getRuntime().addShutdownHook(new Thread(agent::close, "garden-agent-shutdown"));
    agent.awaitTermination();
  }

  /** Starts the agent the command line asks for; a bad flag is an IllegalArgumentException. */
  static Agent start(String... args) {
    int port = 8500;
    boolean controllers = true;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "-no-controllers" -> controllers = false;
        case "-port" -> port = port(i + 1 < args.length ? args[++i] : null);
        default -> throw new IllegalArgumentException("unknown argument " + args[i]);
      }
    }
    return start(port, controllers);
  }

  private static int port(String value) {
    if (value == null) {
      throw new IllegalArgumentException("-port needs a number");
    }
    try {
      return Integer.parseInt(value);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("-port must be a number, was " + value);
    }
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
