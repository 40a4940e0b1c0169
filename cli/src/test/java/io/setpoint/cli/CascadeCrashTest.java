package io.setpoint.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.Any;
import com.google.protobuf.TextFormat;
import io.setpoint.api.Ids;
import io.setpoint.api.Tenancies;
import io.setpoint.api.operator.v1.Peer;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Tenancy;
import io.setpoint.client.SetpointClient;
import io.setpoint.demo.DemoTypes;
import io.setpoint.demo.v2.Album;
import io.setpoint.demo.v2.Artist;
import io.setpoint.testkit.FreePorts;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A cascade interrupted by kill -9 finishes: of a durable agent, after its restart; of the leader
 * of three, after the failover. The owner's tombstone, written before the owner was deleted, is in
 * the log, and the cascade controller of the restarted agent or of the new leader deletes what is
 * left. Each agent is a JVM of its own, killed right after the owner's delete returns, while a
 * thousand children wait to be deleted.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class CascadeCrashTest {
  private static final String JAVA_HOME = System.getProperty("java.home");
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static final int CHILDREN = 1000;
  /** The agent's cascade controller, as the controller list names it. */
  private static final String CASCADE = "setpoint-cascade";

  @TempDir Path dir;

  private Process start(int port, int raftPort) throws IOException {
    return start(port, "agent", "-port", Integer.toString(port), "-data-dir", dir.resolve("data").toString(),
        "-raft-port", Integer.toString(raftPort), "-demo-types", "-no-demo-controllers", "-no-acls");
  }

  /** Starts {@code setpoint ARGS} in a JVM of its own and waits until its API port answers {@code /readyz}. */
  private Process start(int port, String... args) throws IOException {
    Process agent = launch(port, args);
    awaitReady(agent, port);
    return agent;
  }

  /** Starts {@code setpoint ARGS} in a JVM of its own, its output in agent-PORT.log. */
  private Process launch(int port, String... args) throws IOException {
    List<String> command = new ArrayList<>(List.of(Path.of(JAVA_HOME, "bin", "java").toString(), "-Xmx512m",
        "-cp", System.getProperty("java.class.path"), Main.class.getName()));
    command.addAll(List.of(args));
    return new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log(port).toFile())).start();
  }

  private Path log(int port) {
    return dir.resolve("agent-" + port + ".log");
  }

  private void awaitReady(Process agent, int port) {
    HttpRequest ready = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/readyz"))
        .timeout(Duration.ofSeconds(2)).build();
    try {
      await().atMost(Duration.ofSeconds(90)).ignoreExceptions()
          .failFast("the agent exited; see " + log(port), () -> !agent.isAlive())
          .until(() -> HTTP.send(ready, HttpResponse.BodyHandlers.discarding()).statusCode() == 200);
    } catch (RuntimeException e) {
      agent.destroyForcibly();
      throw e;
    }
  }

  /** Writes an Artist named owner in {@code tenancy} and {@link #CHILDREN} Albums it owns. */
  private static ID ownerWithChildren(SetpointClient client, Tenancy tenancy) {
    ID owner = client.write(Resource.newBuilder()
        .setId(Ids.of(DemoTypes.ARTIST, tenancy, "owner"))
        .setData(Any.pack(Artist.newBuilder().setName("Owner").build())).build()).getId();
    for (int i = 0; i < CHILDREN; i++) {
      client.write(Resource.newBuilder()
          .setId(Ids.of(DemoTypes.ALBUM, tenancy, "album-" + i))
          .setOwner(owner)
          .setData(Any.pack(Album.newBuilder().setName("Album " + i).build())).build());
    }
    assertThat(client.listByOwner(owner)).hasSize(CHILDREN);
    return owner;
  }

  private static void awaitCascadeDone(SetpointClient client, ID owner) {
    await().atMost(Duration.ofSeconds(120)).ignoreExceptions().until(() ->
        client.listAll(DemoTypes.ALBUM, owner.getTenancy()).isEmpty());
    assertThat(client.findConsistent(Ids.withoutUid(owner))).isEmpty();
    assertThat(client.listAll(DemoTypes.ARTIST, owner.getTenancy())).isEmpty();
  }

  /** What a member says of the cascade controller and the Raft peers, and the warnings it logged. */
  private String describe(int port) {
    StringBuilder out = new StringBuilder("member " + port + ":");
    try (SetpointClient member = SetpointClient.builder().address("127.0.0.1:" + port).deadline(Duration.ofSeconds(5)).build()) {
      member.controllers().stream().filter(c -> c.getName().equals(CASCADE))
          .forEach(c -> out.append("\n  cascade: ").append(TextFormat.shortDebugString(c)));
      out.append("\n  peers: ").append(TextFormat.shortDebugString(member.raftPeers()));
    } catch (RuntimeException e) {
      out.append("\n  unanswered: ").append(e);
    }
    try (Stream<String> lines = Files.lines(log(port))) {
      lines.filter(line -> line.contains("WARN") || line.contains("ERROR")).forEach(line -> out.append("\n  ").append(line));
    } catch (IOException | UncheckedIOException e) {
      out.append("\n  no log: ").append(e);
    }
    return out.toString();
  }

  private static void kill(Process process) throws InterruptedException {
    process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
  }

  @Test
  void aCascadeInterruptedByKillNineFinishesAfterTheRestart() throws Exception {
    int port = FreePorts.loopback();
    int raftPort = FreePorts.loopback();
    Process agent = start(port, raftPort);
    ID owner;
    try (SetpointClient client = SetpointClient.connect("127.0.0.1:" + port)) {
      owner = ownerWithChildren(client, Tenancies.of("default", "crash"));
      client.delete(owner);
      kill(agent); // kill -9, the cascade under way
    } finally {
      kill(agent);
    }

    Process restarted = start(port, raftPort);
    try (SetpointClient client = SetpointClient.connect("127.0.0.1:" + port)) {
      awaitCascadeDone(client, owner);
    } finally {
      kill(restarted);
    }
  }

  @Test
  void aCascadeInterruptedByKillNineOfTheLeaderOfThreeFinishesAfterTheFailover() throws Exception {
    ClusterArgs cluster = new ClusterArgs(dir, 3);
    int[] api = cluster.apiPorts();
    List<Process> members = new ArrayList<>();
    try {
      for (int i = 0; i < 3; i++) {
        members.add(launch(api[i], cluster.member(i, "-demo-types", "-no-demo-controllers")));
      }
      for (int i = 0; i < 3; i++) {
        awaitReady(members.get(i), api[i]);
      }
      int leader;
      try (SetpointClient any = SetpointClient.connect("127.0.0.1:" + api[0])) {
        String name = await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> any.raftPeers().getPeersList()
            .stream().filter(Peer::getLeader).map(Peer::getName).findFirst(), Optional::isPresent).orElseThrow();
        leader = IntStream.range(0, 3).filter(i -> cluster.name(i).equals(name)).findFirst().orElseThrow();
      }
      ID owner;
      try (SetpointClient client = SetpointClient.connect("127.0.0.1:" + api[leader])) {
        owner = ownerWithChildren(client, Tenancies.of("default", "failover"));
        client.delete(owner);
        kill(members.get(leader)); // kill -9 of the leader, whose cascade controller was under way
      }

      String survivors = IntStream.range(0, 3).filter(i -> i != leader)
          .mapToObj(i -> "127.0.0.1:" + api[i]).collect(Collectors.joining(","));
      try (SetpointClient client = SetpointClient.builder().address(survivors).deadline(Duration.ofSeconds(20)).build()) {
        awaitCascadeDone(client, owner);
      } catch (ConditionTimeoutException e) {
        throw new AssertionError(e.getMessage() + "\n" + IntStream.range(0, 3).filter(i -> i != leader)
            .mapToObj(i -> describe(api[i])).collect(Collectors.joining("\n")), e);
      }
    } finally {
      for (Process member : members) {
        kill(member);
      }
    }
  }
}
