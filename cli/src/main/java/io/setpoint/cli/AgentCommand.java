package io.setpoint.cli;

import io.netty.util.ResourceLeakDetector;
import io.setpoint.api.tls.TlsFiles;
import io.setpoint.demo.DemoControllers;
import io.setpoint.demo.DemoTypes;
import io.setpoint.server.Agent;
import io.setpoint.storage.raft.RaftConfig;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
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
      "-tls-cert/-tls-key: serve HTTPS only (add -tls-ca to require client certificates); -raft-tls-*: mutual TLS between Raft peers.",
      "Stops cleanly on SIGINT or SIGTERM."
    })
final class AgentCommand implements Callable<Integer> {
  /** Where a member is and what it is called unless told otherwise; {@code snapshot restore} prepares one. */
  static final String DEFAULT_NODE = "node1";
  static final String DEFAULT_RAFT_PORT = "8501";
  static final String DEFAULT_PORT = "8500";
  static final String DEFAULT_BIND = "127.0.0.1";

  private static final Logger log = LoggerFactory.getLogger(AgentCommand.class);

  @Spec private CommandSpec spec;

  @Option(names = "-config", paramLabel = "FILE",
      description = "Read settings from FILE (YAML; the keys are these flags without the dash, e.g. 'data-dir: /var/lib/setpoint')."
          + " SETPOINT_* environment variables (e.g. SETPOINT_DATA_DIR) win over the file, and flags over both.")
  private Path config;

  @Option(names = "-print-config",
      description = "Print the settings in effect, each with where it came from (flag, environment, file or default), and exit.")
  private boolean printConfig;

  @Option(names = "-dev", description = "Development mode: in-memory store (lost on exit), demo types, ACLs off.")
  private boolean dev;

  @Option(names = "-acls",
      description = "With -dev: enforce ACLs anyway, to try them (then run 'setpoint acl bootstrap'). Without -dev ACLs are on unless -no-acls.")
  private boolean acls;

  @Option(names = "-no-acls",
      description = "Without -dev: serve without ACLs, like an etcd without auth. Only for benchmarks or a network you trust.")
  private boolean noAcls;

  @Option(names = "-data-dir", paramLabel = "DIR",
      description = "Keep the store in DIR (created if missing; reused on restart). Required without -dev.")
  private Path dataDir;

  @Option(names = "-node", paramLabel = "NAME", defaultValue = DEFAULT_NODE,
      description = "This member's name in the cluster, stable across restarts (default: ${DEFAULT-VALUE}).")
  private String node;

  @Option(names = "-raft-port", paramLabel = "PORT", defaultValue = DEFAULT_RAFT_PORT,
      description = "The port Raft peers talk to this member on (default: ${DEFAULT-VALUE}).")
  private int raftPort;

  @Option(names = "-cluster", paramLabel = "NAME=HOST:PORT,...",
      description = "Every member of the cluster, this one included, with its Raft address, e.g. "
          + "n1=127.0.0.1:8501,n2=127.0.0.1:8511,n3=127.0.0.1:8521. Read when DIR is new; "
          + "afterwards membership comes from the replicated log. Default: this node alone.")
  private String cluster;

  @Option(names = "-join", paramLabel = "HOST:PORT",
      description = "Join a running cluster through any member's API address (https://HOST:PORT for TLS): when DIR is "
          + "new, this member starts unadded, asks that member to add it (AddPeer, operator:write with ACLs on), is "
          + "caught up and serves; a member that lost its data is added again as new. Ignored once DIR holds a membership.")
  private String join;

  @Option(names = "-raft-advertise", paramLabel = "HOST:PORT",
      description = "With -join: the Raft address the other members dial this one at, when a proxy or port forward "
          + "sits in between (default: -bind:-raft-port). Raft listens on its host and on -raft-port.")
  private String raftAdvertise;

  @Option(names = "-join-token", paramLabel = "TOKEN", defaultValue = "${env:SETPOINT_TOKEN}",
      description = "With -join: the ACL token (operator:write) to ask with (default: $SETPOINT_TOKEN).")
  private String joinToken;

  @Option(names = "-join-ca-file", paramLabel = "FILE", defaultValue = "${env:SETPOINT_CACERT}",
      description = "With -join to an agent serving TLS: trust its certificate if this PEM CA signed it (default: $SETPOINT_CACERT).")
  private Path joinCaFile;

  @Option(names = "-demo-types",
      description = "Register the demo types (and run their controllers unless -no-demo-controllers); implied by -dev.")
  private boolean demoTypes;

  @Option(names = "-port", paramLabel = "PORT", defaultValue = DEFAULT_PORT,
      description = "The API port (default: ${DEFAULT-VALUE}; 0 picks a free one).")
  private int port;

  @Option(names = "-bind", paramLabel = "ADDRESS", defaultValue = DEFAULT_BIND,
      description = "The address to listen on (default: ${DEFAULT-VALUE}).")
  private String bind;

  @Option(names = "-no-demo-controllers",
      description = "Serve the demo types but do not run their controllers (run them elsewhere: 'setpoint demo controllers').")
  private boolean noDemoControllers;

  @Mixin private AgentTlsOptions tls;

  @Mixin private AgentLimitOptions limits;

  @Option(names = "-plugins", paramLabel = "DIR",
      description = "Load the plugins (types with Java hooks, controllers) of every jar in DIR; see docs/plugins.md.")
  private Path plugins;

  @Option(names = "-shard-group", paramLabel = "NAME",
      description = "Join the shard group NAME (1 to 30 of [-a-z0-9]): the SHARDED controllers of this agent and its"
          + " plugins split their keys with the other agents in the group, each reconciling its share; the member is"
          + " named after -node. See docs/controllers.md.")
  private String shardGroup;

  @Option(names = "-replace-type-set",
      description = "Record this member's compiled and plugin types as the cluster's even if it lacks some the "
          + "cluster recorded (after removing a type or plugin on purpose); see docs/plugins.md.")
  private boolean replaceTypeSet;

  /** The system property that sets Netty's buffer leak detection, as Netty reads it. */
  static final String LEAK_DETECTION = "io.netty.leakDetection.level";
  /** The system property that tells Armeria whether to load BoringSSL, as Armeria reads it. */
  static final String ARMERIA_OPENSSL = "com.linecorp.armeria.useOpenSsl";
  /** The system property that tells Armeria whether to check Netty's versions, as Armeria reads it. */
  static final String ARMERIA_NETTY_VERSIONS = "com.linecorp.armeria.warnNettyVersions";

  @Override
  public Integer call() {
    checkArguments();
    // For every buffer it samples, Netty records a stack trace to report a leak with: a few percent
    // of a busy agent's CPU. The agent turns it off unless the JVM is told otherwise (-D, say
    // through SETPOINT_JAVA_OPTS).
    if (System.getProperty(LEAK_DETECTION) == null) {
      ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
    }
    if (!dev) {
      useRecordedAddresses();
    }
    if (printConfig) {
      spec.commandLine().getOut().print(AgentSettings.of(spec).describe());
      spec.commandLine().getOut().flush();
      return 0;
    }
    TlsFiles apiTls = tls.api();
    TlsFiles raftTls = tls.raft();
    // Armeria loads BoringSSL (netty-tcnative) as it starts, TLS or not: a good part of a start on
    // two cores. Without TLS on the API port nothing uses it (Raft's TLS is Ratis's own).
    if (apiTls == null) {
      System.getProperties().putIfAbsent(ARMERIA_OPENSSL, "false");
    }
    // Armeria compares the versions in every Netty version file on the class path, and Ratis's
    // shaded Netty 4.1 ships one under the same name as Netty's own: a warning at every start about
    // a copy Armeria never uses. The distribution's Netty is one version (NettyVersionsTest).
    System.getProperties().putIfAbsent(ARMERIA_NETTY_VERSIONS, "false");
    boolean demo = dev || demoTypes;
    Agent agent;
    Agent.Builder builder = Agent.builder().host(bind).port(port).acls(dev ? acls : !noAcls).tls(apiTls)
        .clientCertificatesOptional(tls.clientCertificatesOptional());
    if (dev) {
      builder.storeLimits(limits.store());
    } else if (join != null) {
      builder.raft(raftConfig(raftTls).joining(), new JoinRequest(join, joinToken, joinCaFile)::send);
    } else {
      builder.raft(raftConfig(raftTls));
    }
    try {
      limits.applyTo(builder);
      if (plugins != null) {
        builder.plugins(plugins);
      }
      builder.replaceTypeSet(replaceTypeSet);
      if (shardGroup != null) {
        try {
          builder.shardGroup(shardGroup);
        } catch (IllegalArgumentException e) {
          throw new CliException("-shard-group: " + e.getMessage(), e);
        }
      }
      if (demo) {
        builder.types(DemoTypes::register)
            .controllers(noDemoControllers ? manager -> {} : DemoControllers::register);
      }
      agent = builder.start();
    } catch (UncheckedIOException | IllegalStateException e) {
      // The agent closed what it opened; its message names the file, plugin or port at fault.
      throw new CliException(e.getMessage(), e);
    } catch (IllegalArgumentException e) {
      // A TLS file the agent cannot use (the agent closed the store).
      throw new CliException("-tls-cert/-tls-key/-tls-ca: " + e.getMessage(), e);
    }
    if (!dev) {
      new MemberFile(node, bind, port, raftPort).write(dataDir);
    }
    if (dev) {
      log.info("dev mode: in-memory store (data is lost on exit), demo types registered{}, ACLs {}",
          noDemoControllers ? "" : " with their controllers", acls ? "on (-acls)" : "off");
    } else {
      log.info("durable store in {} (node {}, Raft port {}{}){}, ACLs {}", dataDir.toAbsolutePath(), node, raftPort,
          raftTls == null ? "" : ", mutual TLS between peers",
          demo ? ", demo types registered" + (noDemoControllers ? "" : " with their controllers") : "",
          noAcls ? "OFF (-no-acls)" : "on");
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

  /**
   * A member restarted with only {@code -data-dir} (and maybe {@code -node}) listens where it did:
   * what it was started with is kept in its data directory. A Raft port or node name that
   * contradicts the recorded one is refused: the other members know this member by them.
   */
  private void useRecordedAddresses() {
    MemberFile recorded = MemberFile.read(dataDir);
    if (recorded == null) {
      return;
    }
    Path file = dataDir.resolve(MemberFile.NAME);
    AgentSettings settings = AgentSettings.of(spec);
    String recordedIn = "data directory (" + file + ")";
    if (!settings.given("node")) {
      node = recorded.node();
      settings.replaced("node", recordedIn);
    } else if (!node.equals(recorded.node())) {
      throw usage("-data-dir " + dataDir + " belongs to node " + recorded.node() + " (" + file + "); -node " + node
          + " contradicts it");
    }
    if (!settings.given("raft-port")) {
      raftPort = recorded.raftPort();
      settings.replaced("raft-port", recordedIn);
    } else if (raftPort != recorded.raftPort()) {
      throw usage("node " + node + " has Raft port " + recorded.raftPort() + " (" + file + "), by which the other"
          + " members know it; -raft-port " + raftPort + " contradicts it");
    }
    if (!settings.given("port")) {
      port = recorded.port();
      settings.replaced("port", recordedIn);
    }
    if (!settings.given("bind")) {
      bind = recorded.bind();
      settings.replaced("bind", recordedIn);
    }
  }

  private void checkArguments() {
    if (dev == (dataDir != null)) {
      throw usage(dev
          ? "-dev keeps the store in memory; it cannot be combined with -data-dir"
          : "give -data-dir DIR for a durable store, or -dev for an in-memory one: run 'setpoint agent -dev' to try Setpoint");
    }
    if (dev ? noAcls : acls) {
      throw usage(dev ? "-dev has no ACLs already; -no-acls is for a durable agent" : "ACLs are on without -dev already; -acls is for -dev");
    }
    if (join != null && (dev || cluster != null)) {
      throw usage(dev ? "-join needs a durable store (-data-dir), not -dev"
          : "-join and -cluster exclude each other: -cluster founds a cluster, -join enters a running one");
    }
    if (raftAdvertise != null && join == null) {
      throw usage("-raft-advertise is for -join; founders give their advertised addresses in -cluster");
    }
    if (raftAdvertise != null && !RaftConfig.isPeerAddress(raftAdvertise)) {
      throw usage("-raft-advertise " + raftAdvertise + ": give HOST:PORT, the port within 1..65535");
    }
    if (join != null && raftAdvertise == null && (bind.equals("0.0.0.0") || bind.equals("::"))) {
      throw usage("-join: the other members dial this member at -bind, so give the address they reach it by, not " + bind);
    }
    if (dev && (cluster != null || demoTypes)) {
      throw usage(cluster != null ? "-cluster needs a durable store (-data-dir), not -dev" : "-dev registers the demo types already");
    }
    checkPort("-port", port, true);
    refuse(limits.problem(dev, dev ? acls : !noAcls));
    checkPort("-raft-port", raftPort, false);
    refuse(tls.problem(dev));
  }

  private void refuse(String problem) {
    if (problem != null) {
      throw usage(problem);
    }
  }

  private RaftConfig raftConfig(TlsFiles raftTls) {
    Map<String, String> peers = cluster != null ? parseCluster(cluster)
        : Map.of(node, raftAdvertise != null ? raftAdvertise : bind + ":" + raftPort);
    if (!peers.containsKey(node)) {
      throw usage("-cluster " + cluster + " does not name this node (-node " + node + ")");
    }
    if (raftTls != null) {
      try {
        raftTls.load(); // to name the flag of a file that cannot be used; the store reads them again
      } catch (IllegalArgumentException e) {
        throw new CliException("-raft-tls-cert/-raft-tls-key/-raft-tls-ca: " + e.getMessage(), e);
      }
    }
    return limits.applyTo(RaftConfig.of(node, dataDir, raftPort, peers).withTls(raftTls));
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
