package io.setpoint.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.Any;
import io.setpoint.api.Ids;
import io.setpoint.api.Tenancies;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.client.SetpointClient;
import io.setpoint.demo.DemoTypes;
import io.setpoint.demo.v2.Album;
import io.setpoint.demo.v2.Artist;
import io.setpoint.testkit.FreePorts;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A cascade interrupted by kill -9 of a durable agent finishes after the restart: the owner's
 * tombstone, written before the owner was deleted, is in the log, and the restarted agent's
 * cascade controller deletes what is left. The agent is a JVM of its own, killed right after the
 * owner's delete returns, while a thousand children wait to be deleted.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class CascadeCrashTest {
  private static final String JAVA_HOME = System.getProperty("java.home");
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static final int CHILDREN = 1000;

  @TempDir Path dir;

  private Process start(int port, int raftPort) throws IOException {
    Process agent = new ProcessBuilder(Path.of(JAVA_HOME, "bin", "java").toString(), "-Xmx512m",
        "-cp", System.getProperty("java.class.path"), Main.class.getName(), "agent", "-port", Integer.toString(port),
        "-data-dir", dir.resolve("data").toString(), "-raft-port", Integer.toString(raftPort),
        "-demo-types", "-no-demo-controllers", "-no-acls")
        .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("agent.log").toFile()))
        .start();
    HttpRequest ready = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/readyz"))
        .timeout(Duration.ofSeconds(2)).build();
    try {
      await().atMost(Duration.ofSeconds(90)).ignoreExceptions()
          .failFast("the agent exited; see " + dir.resolve("agent.log"), () -> !agent.isAlive())
          .until(() -> HTTP.send(ready, HttpResponse.BodyHandlers.discarding()).statusCode() == 200);
    } catch (RuntimeException e) {
      agent.destroyForcibly();
      throw e;
    }
    return agent;
  }

  @Test
  void aCascadeInterruptedByKillNineFinishesAfterTheRestart() throws Exception {
    int port = FreePorts.loopback();
    int raftPort = FreePorts.loopback();
    Process agent = start(port, raftPort);
    ID owner;
    try (SetpointClient client = SetpointClient.connect("127.0.0.1:" + port)) {
      owner = client.write(Resource.newBuilder()
          .setId(Ids.of(DemoTypes.ARTIST, Tenancies.of("default", "crash"), "owner"))
          .setData(Any.pack(Artist.newBuilder().setName("Owner").build())).build()).getId();
      for (int i = 0; i < CHILDREN; i++) {
        client.write(Resource.newBuilder()
            .setId(Ids.of(DemoTypes.ALBUM, Tenancies.of("default", "crash"), "album-" + i))
            .setOwner(owner)
            .setData(Any.pack(Album.newBuilder().setName("Album " + i).build())).build());
      }
      assertThat(client.listByOwner(owner)).hasSize(CHILDREN);

      client.delete(owner);
      agent.destroyForcibly().waitFor(30, TimeUnit.SECONDS); // kill -9, the cascade under way
    } finally {
      agent.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
    }

    Process restarted = start(port, raftPort);
    try (SetpointClient client = SetpointClient.connect("127.0.0.1:" + port)) {
      await().atMost(Duration.ofSeconds(120)).until(() ->
          client.listAll(DemoTypes.ALBUM, Tenancies.of("default", "crash")).isEmpty());
      assertThat(client.findConsistent(Ids.withoutUid(owner))).isEmpty();
      assertThat(client.listAll(DemoTypes.ARTIST, Tenancies.of("default", "crash"))).isEmpty();
    } finally {
      restarted.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
    }
  }
}
