package io.setpoint.cli;

import io.setpoint.demo.DemoControllers;
import io.setpoint.demo.DemoTypes;
import io.setpoint.server.agent.Agent;
import io.setpoint.storage.Backend;
import io.setpoint.storage.raft.RaftBackend;
import io.setpoint.storage.raft.RaftConfig;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
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
      "Runs a Setpoint agent: the resource service (gRPC with server reflection, HTTP/JSON under /api) on one port.",
      "-dev: an in-memory store, the demo types and their controllers, no ACLs (unless -acls).",
      "Otherwise ACLs are on: bootstrap the first token with 'setpoint acl bootstrap'.",
      "-data-dir DIR: a durable store (Raft log and snapshots in DIR), one node or, with -cluster, a member of a cluster.",
      "Stops cleanly on SIGINT or SIGTERM."
    })
final class AgentCommand implements Callable<Integer> {
  private static final Logger log = LoggerFactory.getLogger(AgentCommand.class);

  @Spec private CommandSpec spec;

  @Option(names = "-dev", description = "Development mode: in-memory store (lost on exit), demo types, ACLs off.")
  private boolean dev;

  @Option(names = "-acls",
      description = "With -dev: enforce ACLs anyway, to try them (then run 'setpoint acl bootstrap'). Without -dev ACLs are always on.")
  private boolean acls;

  @Option(names = "-data-dir", paramLabel = "DIR",
      description = "Keep the store in DIR (created if missing; reused on restart). Required without -dev.")
  private Path dataDir;

  @Option(names = "-node", paramLabel = "NAME", defaultValue = "node1",
      description = "This member's name in the cluster, stable across restarts (default: ${DEFAULT-VALUE}).")
  private String node;

  @Option(names = "-raft-port", paramLabel = "PORT", defaultValue = "8501",
      description = "The port Raft peers talk to this member on (default: ${DEFAULT-VALUE}).")
  private int raftPort;

  @Option(names = "-cluster", paramLabel = "NAME=HOST:PORT,...",
      description = "Every member of the cluster, this one included, with its Raft address, e.g. "
          + "n1=127.0.0.1:8501,n2=127.0.0.1:8511,n3=127.0.0.1:8521. Read when DIR is new; "
          + "afterwards membership comes from the replicated log. Default: this node alone.")
  private String cluster;

  @Option(names = "-demo-types",
      description = "Register the demo types (and run their controllers unless -no-demo-controllers); implied by -dev.")
  private boolean demoTypes;

  @Option(names = "-port", paramLabel = "PORT", defaultValue = "8500",
      description = "The API port (default: ${DEFAULT-VALUE}; 0 picks a free one).")
  private int port;

  @Option(names = "-bind", paramLabel = "ADDRESS", defaultValue = "127.0.0.1",
      description = "The address to listen on (default: ${DEFAULT-VALUE}).")
  private String bind;

  @Option(names = "-no-demo-controllers",
      description = "Serve the demo types but do not run their controllers (run them elsewhere, e.g. io.setpoint.demo.RemoteControllers).")
  private boolean noDemoControllers;

  @Override
  public Integer call() {
    checkArguments();
    Backend store = dev ? null : openStore();
    boolean demo = dev || demoTypes;
    Agent agent;
    try {
      Agent.Builder builder = Agent.builder().host(bind).port(port).acls(!dev || acls);
      if (store != null) {
        builder.backend(store);
      }
      if (demo) {
        builder.types(DemoTypes::register)
            .controllers(noDemoControllers ? manager -> {} : DemoControllers::register);
      }
      agent = builder.start();
    } catch (IllegalStateException e) {
      if (store != null) {
        store.close();
      }
      throw new CliException(e.getMessage(), e);
    }
    if (dev) {
      log.info("dev mode: in-memory store (data is lost on exit), demo types registered{}, ACLs {}",
          noDemoControllers ? "" : " with their controllers", acls ? "on (-acls)" : "off");
    } else {
      log.info("durable store in {} (node {}, Raft port {}){}", dataDir.toAbsolutePath(), node, raftPort,
          demo ? ", demo types registered" + (noDemoControllers ? "" : " with their controllers") : "");
    }
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

  private void checkArguments() {
    if (dev == (dataDir != null)) {
      throw usage(dev
          ? "-dev keeps the store in memory; it cannot be combined with -data-dir"
          : "give -data-dir DIR for a durable store, or -dev for an in-memory one: run 'setpoint agent -dev' to try Setpoint");
    }
    if (dev && (cluster != null || demoTypes)) {
      throw usage(cluster != null ? "-cluster needs a durable store (-data-dir), not -dev" : "-dev registers the demo types already");
    }
    checkPort("-port", port, true);
    checkPort("-raft-port", raftPort, false);
  }

  private Backend openStore() {
    Map<String, String> peers = cluster == null ? Map.of(node, bind + ":" + raftPort) : parseCluster(cluster);
    if (!peers.containsKey(node)) {
      throw usage("-cluster " + cluster + " does not name this node (-node " + node + ")");
    }
    try {
      return RaftBackend.start(RaftConfig.of(node, dataDir, raftPort, peers));
    } catch (RuntimeException e) {
      throw new CliException("cannot open the store in " + dataDir + ": " + e.getMessage(), e);
    }
  }

  private Map<String, String> parseCluster(String text) {
    Map<String, String> peers = new LinkedHashMap<>();
    for (String member : text.split(",")) {
      int eq = member.indexOf('=');
      int colon = member.lastIndexOf(':');
      if (eq <= 0 || colon < eq + 2 || colon == member.length() - 1) {
        throw usage("-cluster: '" + member + "' is not NAME=HOST:PORT");
      }
      try {
        checkPort("-cluster", Integer.parseInt(member.substring(colon + 1)), false);
      } catch (NumberFormatException e) {
        throw usage("-cluster: '" + member + "' has no numeric port");
      }
      if (peers.put(member.substring(0, eq), member.substring(eq + 1)) != null) {
        throw usage("-cluster names " + member.substring(0, eq) + " twice");
      }
    }
    return peers;
  }

  private void checkPort(String option, int value, boolean zeroAllowed) {
    if (value < (zeroAllowed ? 0 : 1) || value > 65535) {
      throw usage(option + " must be within " + (zeroAllowed ? 0 : 1) + "..65535, was " + value);
    }
  }

  private ParameterException usage(String message) {
    return new ParameterException(spec.commandLine(), message);
  }
}
