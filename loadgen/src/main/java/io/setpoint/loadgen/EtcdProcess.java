package io.setpoint.loadgen;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;
import java.util.UUID;

/**
 * Starts etcd members on loopback: one, or a cluster given its members up front
 * ({@code --initial-cluster}), each a separate process with its own data directory, with etcd's
 * defaults otherwise (so every write is fsynced before it is acknowledged). Ready when every
 * member's {@code /health} answers 200, which etcd does once the cluster has a leader.
 */
public final class EtcdProcess {
  /** Where Debian's {@code etcd-server} package installs etcd. */
  public static final Path DEFAULT_BINARY = Path.of("/usr/bin/etcd");

  private EtcdProcess() {}

  /** Whether {@code binary} exists and is executable. */
  public static boolean installed(Path binary) {
    return Files.isExecutable(binary);
  }

  /**
   * Starts {@code nodes} members and waits until they are ready.
   *
   * @param basePort 0 to pick free ports; else member {@code i} (from 0) gets client port
   *     {@code basePort + 2i} and peer port {@code basePort + 2i + 1}
   */
  public static LocalCluster start(Path binary, int nodes, int basePort, Duration timeout)
      throws InterruptedException {
    if (!installed(binary)) {
      throw new IllegalArgumentException(binary + " is not an executable etcd");
    }
    if (nodes <= 0) {
      throw new IllegalArgumentException("nodes must be positive, was " + nodes);
    }
    List<Integer> ports = Ports.pick(basePort, 2 * nodes);
    StringJoiner initialCluster = new StringJoiner(",");
    for (int i = 0; i < nodes; i++) {
      initialCluster.add(member(i) + "=" + url(ports.get(2 * i + 1)));
    }
    String token = "setpoint-bench-" + UUID.randomUUID();
    LocalCluster cluster = new LocalCluster("etcd", LocalCluster.tempDir("etcd"));
    try {
      List<ServerProcess> started = new ArrayList<>();
      for (int i = 0; i < nodes; i++) {
        int client = ports.get(2 * i);
        int peer = ports.get(2 * i + 1);
        List<String> command = List.of(
            binary.toString(),
            "--name", member(i),
            "--data-dir", cluster.dir().resolve(member(i)).toString(),
            "--listen-client-urls", url(client),
            "--advertise-client-urls", url(client),
            "--listen-peer-urls", url(peer),
            "--initial-advertise-peer-urls", url(peer),
            "--initial-cluster", initialCluster.toString(),
            "--initial-cluster-token", token,
            "--initial-cluster-state", "new",
            "--logger", "zap",
            "--log-outputs", "stderr");
        ServerProcess process = ServerProcess.start(
            "etcd " + member(i), command, cluster.dir().resolve(member(i) + ".log"));
        cluster.add(process, "127.0.0.1:" + client, URI.create(url(client) + "/health"));
        started.add(process);
      }
      for (int i = 0; i < nodes; i++) {
        started.get(i).awaitHttpOk(URI.create(url(ports.get(2 * i)) + "/health"), timeout);
      }
      return cluster;
    } catch (RuntimeException | InterruptedException e) {
      cluster.close();
      throw e;
    }
  }

  private static String member(int i) {
    return "n" + (i + 1);
  }

  private static String url(int port) {
    return "http://127.0.0.1:" + port;
  }
}
