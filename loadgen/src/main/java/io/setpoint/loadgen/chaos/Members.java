package io.setpoint.loadgen.chaos;

import io.setpoint.api.operator.v1.ListPeersResponse;
import io.setpoint.client.SetpointClient;
import io.setpoint.client.SetpointException;
import io.setpoint.loadgen.AgentProcess;
import io.setpoint.loadgen.LocalCluster;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

/**
 * The durable members of a run, as separate processes ({@link AgentProcess}), with what the faults
 * need: who leads, and which members are down or paused (not to be asked).
 */
final class Members implements AutoCloseable {
  /** Each member's heap: five members and the suite share a small machine. */
  private static final List<String> JVM_OPTIONS = List.of("-Xmx512m");
  private static final Duration ASK_DEADLINE = Duration.ofSeconds(1);

  private final LocalCluster cluster;
  private final Network network;
  private final Disks disks;
  private final List<SetpointClient> admin = new ArrayList<>();
  /** Asks the members' {@code /readyz}; one for the run, as the full-disk phase asks many times. */
  private final HttpClient http = HttpClient.newHttpClient();
  private final Set<Integer> unreachable = ConcurrentHashMap.newKeySet();

  private Members(LocalCluster cluster, Network network, Disks disks) {
    this.cluster = cluster;
    this.network = network;
    this.disks = disks;
    for (String endpoint : cluster.endpoints()) {
      admin.add(SetpointClient.builder().address(endpoint).deadline(ASK_DEADLINE).build());
    }
  }

  /**
   * Starts {@code config.members()} durable members without ACLs and waits until all are ready;
   * when a phase partitions them, they dial one another through a {@link Network} of proxies.
   */
  static Members start(ChaosConfig config) throws InterruptedException {
    AgentProcess.Config agents = new AgentProcess.Config(AgentProcess.Mode.DURABLE, config.members(), 0,
        false, config.agentArgs(), Stream.concat(JVM_OPTIONS.stream(), config.agentJvmOptions().stream()).toList(),
        config.startTimeout());
    AtomicReference<LocalCluster> started = new AtomicReference<>();
    Network network = config.faults().stream().anyMatch(Fault::partitions)
        ? new Network(() -> started.get() == null ? List.of() : started.get().pids())
        : null;
    Disks disks = config.faults().contains(Fault.FULL_DISK) ? new Disks() : null;
    try {
      started.set(AgentProcess.start(agents, network == null ? AgentProcess.RaftFront.DIRECT : network::front,
          disks == null ? AgentProcess.DataDirs.AGENT_MADE : disks));
      return new Members(started.get(), network, disks);
    } catch (RuntimeException | InterruptedException e) {
      if (network != null) {
        network.close();
      }
      if (disks != null) {
        disks.close();
      }
      throw e;
    }
  }

  LocalCluster cluster() {
    return cluster;
  }

  /** The proxies between the members; present only when a phase partitions them. */
  Network network() {
    if (network == null) {
      throw new IllegalStateException("the members were started without proxies between them");
    }
    return network;
  }

  /** Each member's disk of its own; present only when a phase fills one. */
  Disks disks() {
    if (disks == null) {
      throw new IllegalStateException("the members were started without disks of their own");
    }
    return disks;
  }

  /** Whether the members dial one another through proxies. */
  boolean proxied() {
    return network != null;
  }

  int size() {
    return admin.size();
  }

  List<String> endpoints() {
    return cluster.endpoints();
  }

  /** {@code n1}, {@code n2}, ...: the members' node names. */
  static String name(int member) {
    return "n" + (member + 1);
  }

  /** A member is down or paused from now until {@link #reachable}: the leader is not asked of it. */
  void unreachable(int member) {
    unreachable.add(member);
  }

  void reachable(int member) {
    unreachable.remove(member);
  }

  /**
   * Removes member {@code member} from the membership, asking member {@code via}; a leader hands
   * over first, so this may take an election's time.
   */
  void remove(int member, int via, Duration timeout) {
    try (SetpointClient client = SetpointClient.builder().address(cluster.endpoints().get(via)).deadline(timeout).build()) {
      client.removeRaftPeer(name(member));
    }
  }

  /** Whether member {@code member}'s {@code /readyz} answers 503 now with {@code reason} in its message. */
  boolean readyzSays(int member, String reason) throws InterruptedException {
    URI readyz = URI.create("http://" + cluster.endpoints().get(member) + "/readyz");
    try {
      HttpResponse<String> answer = http.send(HttpRequest.newBuilder(readyz).timeout(ASK_DEADLINE).build(),
          HttpResponse.BodyHandlers.ofString());
      return answer.statusCode() == 503 && answer.body().contains(reason);
    } catch (IOException e) {
      return false; // not answering now
    }
  }

  /** The member that says it leads, asking each reachable one in turn; empty if none does now. */
  OptionalInt leader() {
    if (size() == 1) {
      return OptionalInt.of(0);
    }
    for (int i = 0; i < size(); i++) {
      if (unreachable.contains(i)) {
        continue;
      }
      try {
        ListPeersResponse peers = admin.get(i).raftPeers();
        if (peers.getPeersList().stream().anyMatch(p -> p.getLeader() && p.getName().equals(peers.getAnsweredBy()))) {
          return OptionalInt.of(i);
        }
      } catch (SetpointException e) {
        // This member cannot say now; ask the next.
      }
    }
    return OptionalInt.empty();
  }

  /** Waits (bounded) until a member says it leads. */
  int awaitLeader(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    for (;;) {
      OptionalInt leader = leader();
      if (leader.isPresent()) {
        return leader.getAsInt();
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("no member led within " + timeout);
      }
      Thread.sleep(50);
    }
  }

  /** Stops every member and deletes their data. */
  @Override
  public void close() {
    admin.forEach(SetpointClient::close);
    http.close();
    if (disks != null) {
      // Unmounted once the members are gone, and before their directories are deleted.
      cluster.stop();
      disks.close();
    }
    cluster.close();
    if (network != null) {
      network.close();
    }
  }
}
