package io.setpoint.loadgen;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;

/**
 * Starts Setpoint agents on loopback, each a separate JVM running {@code io.setpoint.cli.Main
 * agent} from the class path of this JVM, with the flags the {@code setpoint} launcher gives the
 * JVM. Ready when every agent's {@code /readyz} answers 200.
 *
 * <p>Agent command lines ({@link Mode#DURABLE}):
 * <pre>
 * 1 node:  agent -data-dir DIR -port P -demo-types -no-demo-controllers [-no-acls]
 * N nodes: agent -node nI -data-dir DIR -port P -raft-port R -cluster n1=127.0.0.1:R1,... -demo-types -no-demo-controllers [-no-acls]
 * </pre>
 * and {@link Mode#DEV}: {@code agent -dev -port P -no-demo-controllers [-acls]} (one node, in
 * memory). The demo types are served (the load writes {@code demo.v2.Artist}s) but their controllers
 * do not run, so the agents do nothing but serve the writes.
 */
public final class AgentProcess {
  /** The CLI's entry point. */
  public static final String MAIN_CLASS = "io.setpoint.cli.Main";
  /**
   * The heap sizing the launcher gives an agent: G1 commits what the store holds and a third more,
   * up to half the machine, and sizes young collections for 50 ms pauses rather than growing the
   * heap under a load.
   */
  static final List<String> HEAP = List.of("-XX:MaxRAMPercentage=50", "-XX:MaxGCPauseMillis=50", "-XX:GCTimeRatio=4", "-XX:MinHeapFreeRatio=10", "-XX:MaxHeapFreeRatio=30");

  private AgentProcess() {}

  /** Which agents to start. */
  public enum Mode {
    /** The durable agent: the Raft log on disk (fsynced), one node or a cluster. */
    DURABLE,
    /** {@code -dev}: the in-memory store, one node only; nothing is durable. */
    DEV
  }

  /**
   * What to start.
   *
   * @param basePort 0 to pick free ports; else agent {@code i} (from 0) gets port
   *     {@code basePort + 2i} and Raft port {@code basePort + 2i + 1}
   * @param acls whether the agents enforce ACLs: durable agents get {@code -no-acls} without
   *     them, -dev agents {@code -acls} with them
   * @param agentArgs appended to every agent's arguments
   * @param jvmOptions added to every agent's JVM options
   */
  public record Config(Mode mode, int nodes, int basePort, boolean acls, List<String> agentArgs,
      List<String> jvmOptions, Duration timeout) {
    public Config {
      if (nodes <= 0) {
        throw new IllegalArgumentException("nodes must be positive, was " + nodes);
      }
      if (mode == Mode.DEV && nodes != 1) {
        throw new IllegalArgumentException("-dev agents do not form clusters: nodes must be 1, was " + nodes);
      }
      agentArgs = List.copyOf(agentArgs);
      jvmOptions = List.copyOf(jvmOptions);
    }
  }

  /**
   * Where the members dial one another: given member {@code i} (from 0) and the Raft port it
   * listens on, the port the others reach it at, such as a proxy's that forwards there.
   */
  @FunctionalInterface
  public interface RaftFront {
    /** Each member is dialled where it listens. */
    RaftFront DIRECT = (member, raftPort) -> raftPort;

    int port(int member, int raftPort);
  }

  /**
   * Readies member {@code i}'s data directory before its agent starts, such as by mounting a disk
   * of its own there.
   */
  @FunctionalInterface
  public interface DataDirs {
    /** The agent makes its directory itself. */
    DataDirs AGENT_MADE = (member, dir) -> {};

    void prepare(int member, Path dir);
  }

  /** Starts the agents and waits until they are ready. */
  public static LocalCluster start(Config config) throws InterruptedException {
    return start(config, RaftFront.DIRECT);
  }

  /**
   * Starts the agents, their {@code -cluster} naming the ports {@code front} gives, and waits until
   * they are ready.
   */
  public static LocalCluster start(Config config, RaftFront front) throws InterruptedException {
    return start(config, front, DataDirs.AGENT_MADE);
  }

  /**
   * Starts the agents, their {@code -cluster} naming the ports {@code front} gives, their data
   * directories readied by {@code dataDirs}, and waits until they are ready.
   */
  public static LocalCluster start(Config config, RaftFront front, DataDirs dataDirs) throws InterruptedException {
    int nodes = config.nodes();
    List<Integer> ports = Ports.pick(config.basePort(), 2 * nodes);
    StringJoiner members = new StringJoiner(",");
    for (int i = 0; i < nodes; i++) {
      members.add(member(i) + "=127.0.0.1:" + front.port(i, ports.get(2 * i + 1)));
    }
    LocalCluster cluster = new LocalCluster("setpoint", LocalCluster.tempDir("setpoint"));
    try {
      List<ServerProcess> started = new ArrayList<>();
      for (int i = 0; i < nodes; i++) {
        int port = ports.get(2 * i);
        List<String> command = new ArrayList<>(jvm(config.jvmOptions()));
        command.add("agent");
        if (config.mode() == Mode.DEV) {
          command.addAll(List.of("-dev", "-port", Integer.toString(port), "-no-demo-controllers"));
          if (config.acls()) {
            command.add("-acls");
          }
        } else {
          dataDirs.prepare(i, cluster.dir().resolve(member(i)));
          if (nodes > 1) {
            command.addAll(List.of("-node", member(i)));
          }
          command.addAll(List.of(
              "-data-dir", cluster.dir().resolve(member(i)).toString(),
              "-port", Integer.toString(port)));
          if (nodes > 1) {
            command.addAll(List.of(
                "-raft-port", Integer.toString(ports.get(2 * i + 1)),
                "-cluster", members.toString()));
          }
          command.addAll(List.of("-demo-types", "-no-demo-controllers"));
          if (!config.acls()) {
            command.add("-no-acls");
          }
        }
        command.addAll(config.agentArgs());
        ServerProcess process = ServerProcess.start(
            "setpoint agent " + member(i), command, cluster.dir().resolve(member(i) + ".log"));
        cluster.add(process, "127.0.0.1:" + port, URI.create("http://127.0.0.1:" + port + "/readyz"));
        started.add(process);
      }
      for (int i = 0; i < nodes; i++) {
        started.get(i).awaitHttpOk(URI.create("http://127.0.0.1:" + ports.get(2 * i) + "/readyz"), config.timeout());
      }
      return cluster;
    } catch (RuntimeException | InterruptedException e) {
      cluster.close();
      throw e;
    }
  }

  /**
   * Brings member {@code index} of a durable cluster (it must have exited) back as a member that
   * lost its data: its data directory deleted, then started with {@code -join via} instead of
   * {@code -cluster}, on its old node name and ports, and advertising the Raft address the
   * {@code -cluster} it was founded with named for it (a proxy's, say). Waits until it is ready.
   */
  public static void rejoin(LocalCluster cluster, int index, String via, Duration timeout) throws InterruptedException {
    // Its contents, not the directory itself: that may be a disk of its own, mounted there.
    try (var files = java.nio.file.Files.list(cluster.dir().resolve(member(index)))) {
      files.forEach(LocalCluster::deleteRecursively);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException("cannot wipe " + member(index) + "'s data directory", e);
    }
    cluster.restart(index, command -> joining(command, member(index), via), timeout);
  }

  /**
   * {@code command} with its {@code -cluster} replaced by {@code -join via} and this member's entry
   * advertised; a command that joined already joins through {@code via} now.
   */
  static List<String> joining(List<String> command, String member, String via) {
    int joined = command.indexOf("-join");
    if (joined >= 0 && joined < command.size() - 1) {
      List<String> again = new ArrayList<>(command);
      again.set(joined + 1, via);
      return again;
    }
    int at = command.indexOf("-cluster");
    if (at < 0 || at == command.size() - 1) {
      throw new IllegalArgumentException("not a cluster member's command: " + command);
    }
    String advertised = null;
    for (String entry : command.get(at + 1).split(",")) {
      if (entry.startsWith(member + "=")) {
        advertised = entry.substring(member.length() + 1);
      }
    }
    if (advertised == null) {
      throw new IllegalArgumentException("-cluster " + command.get(at + 1) + " does not name " + member);
    }
    List<String> joining = new ArrayList<>(command.subList(0, at));
    joining.addAll(List.of("-join", via, "-raft-advertise", advertised));
    joining.addAll(command.subList(at + 2, command.size()));
    return joining;
  }

  /** {@code java <flags> -cp <this JVM's class path> io.setpoint.cli.Main}. */
  static List<String> jvm(List<String> options) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    // What the setpoint launcher passes: Netty and protobuf use native access and sun.misc.Unsafe.
    command.add("--enable-native-access=ALL-UNNAMED");
    if (Runtime.version().feature() >= 23) {
      command.add("--sun-misc-unsafe-memory-access=allow");
    }
    if (Runtime.version().feature() >= 22) {
      command.add("-XX:UserThreadWaitAttemptsAtExit=0");
    }
    command.addAll(HEAP);
    command.addAll(AotCache.AGENT.flags());
    command.addAll(options);
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(MAIN_CLASS);
    return command;
  }

  private static String member(int i) {
    return "n" + (i + 1);
  }
}
