package io.setpoint.cli;

import static org.awaitility.Awaitility.await;

import io.setpoint.api.v1.Type;
import io.setpoint.client.SetpointClient;
import io.setpoint.client.SetpointException;
import io.setpoint.testkit.FreePorts;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The {@code setpoint agent} command lines of a cluster on loopback: free API and Raft ports, a
 * data directory each under {@code dir}, and node names unique in this JVM (Ratis registers a JMX
 * bean per member name).
 */
final class ClusterArgs {
  private static final AtomicInteger CLUSTERS = new AtomicInteger();

  private final Path dir;
  private final String prefix = "c" + CLUSTERS.incrementAndGet() + "-";
  private final int[] api;
  private final int[] raft;
  private final String cluster;

  ClusterArgs(Path dir, int size) {
    this(dir, size, size);
  }

  /**
   * {@code size} members' ports and names, the first {@code founders} of which form the cluster
   * ({@code -cluster}); the rest can {@linkplain #joining join} it.
   */
  ClusterArgs(Path dir, int size, int founders) {
    this.dir = dir;
    this.api = new int[size];
    this.raft = new int[size];
    StringJoiner members = new StringJoiner(",");
    for (int i = 0; i < size; i++) {
      api[i] = FreePorts.loopback();
      raft[i] = FreePorts.loopback();
      if (i < founders) {
        members.add(prefix + i + "=127.0.0.1:" + raft[i]);
      }
    }
    this.cluster = members.toString();
  }

  /** The API ports, in member order. */
  int[] apiPorts() {
    return api.clone();
  }

  /** {@code agent -data-dir ... -node ... -cluster ... -no-acls} for member {@code i}, then {@code extra}. */
  String[] member(int i, String... extra) {
    List<String> args = new ArrayList<>(List.of("agent", "-data-dir", dir.resolve("m" + i).toString(), "-node", prefix + i,
        "-raft-port", String.valueOf(raft[i]), "-port", String.valueOf(api[i]), "-cluster", cluster, "-no-acls"));
    args.addAll(List.of(extra));
    return args.toArray(String[]::new);
  }

  /**
   * {@code agent -data-dir ... -node ... -join 127.0.0.1:API -no-acls} for member {@code i}, joining
   * through the member whose API port is {@code via}, then {@code extra}.
   */
  String[] joining(int i, int via, String... extra) {
    List<String> args = new ArrayList<>(List.of("agent", "-data-dir", dir.resolve("m" + i).toString(), "-node", name(i),
        "-raft-port", String.valueOf(raft[i]), "-port", String.valueOf(api[i]), "-join", "127.0.0.1:" + via, "-no-acls"));
    args.addAll(List.of(extra));
    return args.toArray(String[]::new);
  }

  /** Member {@code i}'s node name. */
  String name(int i) {
    return prefix + i;
  }

  /** Member {@code i}'s data directory. */
  Path dataDir(int i) {
    return dir.resolve("m" + i);
  }

  /** Whether the agent at {@code port} on loopback serves {@code type}; false while it cannot be reached. */
  static boolean serves(int port, Type type) {
    try (SetpointClient client = SetpointClient.connect("127.0.0.1:" + port)) {
      return client.types().getTypesList().stream().anyMatch(t -> t.getType().equals(type));
    } catch (SetpointException e) {
      return false;
    }
  }

  /** Waits until the agent at {@code port} on loopback answers {@code /readyz} with 200. */
  static void awaitReady(int port, Duration atMost) {
    HttpClient http = HttpClient.newHttpClient();
    HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/readyz")).build();
    await().atMost(atMost).ignoreExceptions()
        .until(() -> http.send(request, HttpResponse.BodyHandlers.ofString()).statusCode(), code -> code == 200);
  }

  /** Stops, as SIGINT would, every run in {@code runs} still running. */
  static void stopAll(List<CliRun> runs) throws InterruptedException {
    for (CliRun run : runs) {
      if (run.code() == null) {
        run.interruptAndJoin();
      }
    }
  }
}
