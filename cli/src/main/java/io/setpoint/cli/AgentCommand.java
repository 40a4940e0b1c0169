package io.setpoint.cli;

import io.grpc.Status;
import io.netty.util.ResourceLeakDetector;
import io.setpoint.api.operator.v1.AddPeerRequest;
import io.setpoint.api.tls.TlsFiles;
import io.setpoint.client.SetpointClient;
import io.setpoint.client.SetpointException;
import io.setpoint.demo.DemoControllers;
import io.setpoint.demo.DemoTypes;
import io.setpoint.server.Agent;
import io.setpoint.storage.engine.Limits;
import io.setpoint.storage.raft.RaftConfig;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;
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
  /** How long -join keeps asking a member that cannot be reached or has no leader yet. */
  private static final Duration JOIN_RETRIES = Duration.ofSeconds(60);
  private static final Duration JOIN_PAUSE = Duration.ofSeconds(1);

  @Spec private CommandSpec spec;

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

  @Option(names = "-tls-cert", paramLabel = "FILE",
      description = "Serve the API port over TLS only (gRPC, HTTP/JSON, /metrics) with this PEM certificate (chain); needs -tls-key.")
  private Path tlsCert;

  @Option(names = "-tls-key", paramLabel = "FILE",
      description = "The unencrypted PEM private key (PKCS#8, or PKCS#1 for RSA) of -tls-cert.")
  private Path tlsKey;

  @Option(names = "-tls-ca", paramLabel = "FILE",
      description = "With -tls-cert: require every client to present a certificate signed by this PEM CA (mutual TLS).")
  private Path tlsCa;

  @Option(names = "-raft-tls-cert", paramLabel = "FILE",
      description = "Talk to Raft peers over mutual TLS with this PEM certificate, which must name this member's -cluster host; "
          + "needs -raft-tls-key and -raft-tls-ca.")
  private Path raftTlsCert;

  @Option(names = "-raft-tls-key", paramLabel = "FILE", description = "The unencrypted PEM private key of -raft-tls-cert.")
  private Path raftTlsKey;

  @Option(names = "-raft-tls-ca", paramLabel = "FILE",
      description = "The PEM CA that signed every peer's -raft-tls-cert; peers with other certificates are refused.")
  private Path raftTlsCa;

  @Option(names = "-max-connections", paramLabel = "N",
      description = "The most client connections open at once; new ones past it are reset on arrival (default: the "
          + "file-descriptor limit less a fifth, at least 256, kept for the store and the JVM).")
  private Integer maxConnections;

  @Option(names = "-max-connections-per-client", paramLabel = "N",
      description = "The most connections open at once from one client address (default: 512, or -max-connections "
          + "when lower). Raise it for clients behind one proxy or NAT.")
  private Integer maxConnectionsPerClient;

  @Option(names = "-max-watches-per-client", paramLabel = "N",
      description = "At most N watches open at once from each client (its token, or its address without one); "
          + "more are refused with RESOURCE_EXHAUSTED / HTTP 429 (default: no limit).")
  private Integer maxWatchesPerClient;

  @Option(names = "-metrics-acl",
      description = "With ACLs on: /metrics needs a token with operator:read (Authorization: Bearer).")
  private boolean metricsAcl;

  @Option(names = "-snapshot-every", paramLabel = "N",
      description = "With -data-dir: take a snapshot of the store every N Raft log entries and purge the log behind"
          + " it (default: 10000; one entry carries a batch of writes).")
  private Integer snapshotEvery;

  @Option(names = "-client-rate-limit", paramLabel = "N",
      description = "At most N API requests per second from each client (its token, or its address without one); "
          + "more are refused with RESOURCE_EXHAUSTED / HTTP 429 and Retry-After (default: no limit).")
  private Integer clientRateLimit;

  @Option(names = "-client-rate-burst", paramLabel = "N",
      description = "With -client-rate-limit: requests a client may make at once after a quiet spell (default: "
          + "the rate).")
  private Integer clientRateBurst;

  @Option(names = "-history-mib", paramLabel = "MIB",
      description = "Keep at most MIB mebibytes of past resource versions for watch resumes and page tokens "
          + "(default: an eighth of the JVM's maximum heap); the oldest are compacted first.")
  private Integer historyMib;

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
    TlsFiles apiTls = apiTls();
    TlsFiles raftTls = raftTls();
    // Armeria loads BoringSSL (netty-tcnative) as it starts, TLS or not: about 0.4 s of a start on
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
    Agent.Builder builder = Agent.builder().host(bind).port(port).acls(dev ? acls : !noAcls).tls(apiTls);
    if (dev) {
      builder.storeLimits(limits());
    } else if (join != null) {
      builder.raft(raftConfig(raftTls).joining(), this::requestAdd);
    } else {
      builder.raft(raftConfig(raftTls));
    }
    try {
      if (maxConnections != null) {
        builder.maxConnections(maxConnections);
      }
      if (maxConnectionsPerClient != null) {
        builder.maxConnectionsPerClient(maxConnectionsPerClient);
      }
      builder.metricsAcl(metricsAcl);
      if (maxWatchesPerClient != null) {
        builder.maxWatchesPerClient(maxWatchesPerClient);
      }
      if (clientRateLimit != null) {
        builder.clientRateLimit(clientRateLimit, clientRateBurst != null ? clientRateBurst : clientRateLimit);
      }
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
   * Asks the member at {@code -join} to add this one, which has no data. While that member cannot
   * be reached or has no leader (the cluster is starting too), asks again for up to {@link
   * #JOIN_RETRIES}.
   */
  private void requestAdd(String name, String raftAddress) {
    AddPeerRequest request = AddPeerRequest.newBuilder().setName(name).setAddress(raftAddress).setLostItsData(true).build();
    long deadline = System.nanoTime() + JOIN_RETRIES.toNanos();
    try (SetpointClient client = SetpointClient.builder().address(join).token(joinToken).tls(joinCaFile).build()) {
      for (;;) {
        try {
          client.async().addRaftPeer(request).join();
          return;
        } catch (CompletionException e) {
          Throwable cause = e.getCause() == null ? e : e.getCause();
          if (!(cause instanceof SetpointException failure) || failure.code() != Status.Code.UNAVAILABLE
              || System.nanoTime() > deadline) {
            throw cause instanceof RuntimeException r ? r : e;
          }
          log.info("-join {}: not added yet ({}); asking again", join, failure.getMessage());
          Thread.sleep(JOIN_PAUSE.toMillis());
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("-join " + join + ": interrupted while asking to add " + name, e);
    } catch (RuntimeException e) {
      throw new IllegalStateException("-join " + join + ": the cluster did not add " + name + ": " + e.getMessage(), e);
    }
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
    ParseResult given = spec.commandLine().getParseResult();
    Path file = dataDir.resolve(MemberFile.NAME);
    if (!given.hasMatchedOption("-node")) {
      node = recorded.node();
    } else if (!node.equals(recorded.node())) {
      throw usage("-data-dir " + dataDir + " belongs to node " + recorded.node() + " (" + file + "); -node " + node
          + " contradicts it");
    }
    if (!given.hasMatchedOption("-raft-port")) {
      raftPort = recorded.raftPort();
    } else if (raftPort != recorded.raftPort()) {
      throw usage("node " + node + " has Raft port " + recorded.raftPort() + " (" + file + "), by which the other"
          + " members know it; -raft-port " + raftPort + " contradicts it");
    }
    if (!given.hasMatchedOption("-port")) {
      port = recorded.port();
    }
    if (!given.hasMatchedOption("-bind")) {
      bind = recorded.bind();
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
    checkAtLeastOne("-max-connections", maxConnections);
    checkAtLeastOne("-max-connections-per-client", maxConnectionsPerClient);
    checkAtLeastOne("-history-mib", historyMib);
    if (metricsAcl && (dev ? !acls : noAcls)) {
      throw usage("-metrics-acl needs ACLs on (the default with -data-dir, or -dev -acls)");
    }
    checkAtLeastOne("-snapshot-every", snapshotEvery);
    checkAtLeastOne("-max-watches-per-client", maxWatchesPerClient);
    if (dev && snapshotEvery != null) {
      throw usage("-snapshot-every is for a durable store (-data-dir); -dev keeps no snapshots");
    }
    checkAtLeastOne("-client-rate-limit", clientRateLimit);
    checkAtLeastOne("-client-rate-burst", clientRateBurst);
    if (clientRateBurst != null && clientRateLimit == null) {
      throw usage("-client-rate-burst goes with -client-rate-limit N");
    }
    checkPort("-raft-port", raftPort, false);
    if ((tlsCert == null) != (tlsKey == null)) {
      throw usage("-tls-cert and -tls-key go together: give both (the certificate and its private key) or neither");
    }
    if (tlsCa != null && tlsCert == null) {
      throw usage("-tls-ca requires -tls-cert and -tls-key: client certificates are checked only over TLS");
    }
    int raftTlsFiles = (raftTlsCert == null ? 0 : 1) + (raftTlsKey == null ? 0 : 1) + (raftTlsCa == null ? 0 : 1);
    if (raftTlsFiles != 0 && raftTlsFiles != 3) {
      throw usage("-raft-tls-cert, -raft-tls-key and -raft-tls-ca go together: Raft peers use mutual TLS, so give all three or none");
    }
    if (raftTlsFiles == 3 && dev) {
      throw usage("-raft-tls-* needs a durable store (-data-dir): -dev has no Raft peers");
    }
  }

  /** The store's bounds: the defaults, with -history-mib if given. */
  private Limits limits() {
    return historyMib == null ? Limits.DEFAULT : Limits.DEFAULT.withHistoryBytes((long) historyMib << 20);
  }

  private TlsFiles apiTls() {
    if (tlsCert == null) {
      return null;
    }
    TlsFiles files = TlsFiles.of(tlsCert, tlsKey);
    return tlsCa == null ? files : files.withTrustedCa(tlsCa);
  }

  private TlsFiles raftTls() {
    return raftTlsCert == null ? null : new TlsFiles(raftTlsCert, raftTlsKey, raftTlsCa);
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
    RaftConfig config = RaftConfig.of(node, dataDir, raftPort, peers).withLimits(limits()).withTls(raftTls);
    return snapshotEvery == null ? config
        : config.withTuning(config.tuning().withSnapshots(snapshotEvery, config.tuning().logSegmentBytes()));
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

  private void checkAtLeastOne(String option, Integer value) {
    if (value != null && value < 1) {
      throw usage(option + " must be at least 1, was " + value);
    }
  }

  private ParameterException usage(String message) {
    return new ParameterException(spec.commandLine(), message);
  }
}
