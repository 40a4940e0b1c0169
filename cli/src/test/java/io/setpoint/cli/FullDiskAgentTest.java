package io.setpoint.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.Any;
import io.grpc.Status.Code;
import io.setpoint.api.Ids;
import io.setpoint.api.v1.Resource;
import io.setpoint.client.SetpointClient;
import io.setpoint.client.SetpointException;
import io.setpoint.demo.DemoTypes;
import io.setpoint.demo.v2.Artist;
import io.setpoint.testkit.FreePorts;
import io.setpoint.testkit.Tmpfs;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A durable agent ({@code setpoint agent -data-dir}) whose disk fills up, on a real tmpfs: writes
 * fail fast with 503/{@code UNAVAILABLE} saying the disk is full, reads go on, {@code /readyz}
 * says not ready and why, and once space is freed the agent takes writes again by itself, with
 * every acknowledged write present.
 */
@Timeout(180)
class FullDiskAgentTest {
  @RegisterExtension final CliAgent agent = new CliAgent();
  @TempDir Path mountPoint;
  private final HttpClient http = HttpClient.newHttpClient();

  private static Resource artist(String name, int descriptionBytes) {
    return Resource.newBuilder()
        .setId(Ids.of(DemoTypes.ARTIST, name))
        .setData(Any.pack(Artist.newBuilder().setName(name).setDescription("x".repeat(descriptionBytes)).build()))
        .build();
  }

  private HttpResponse<String> send(HttpRequest.Builder request) throws IOException, InterruptedException {
    return http.send(request.timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void writesFailFastAndReadyzSaysWhyWhileTheDiskIsFullThenTheAgentResumesByItself() throws Exception {
    try (Tmpfs disk = Tmpfs.mount(mountPoint, 64)) {
      Path dataDir = disk.path().resolve("data");
      Path filler = disk.path().resolve("filler");
      int port = agent.start("agent", "-data-dir", dataDir.toString(), "-port", "0",
          "-raft-port", String.valueOf(FreePorts.loopback()), "-no-acls", "-demo-types", "-no-demo-controllers");
      String base = "http://127.0.0.1:" + port;
      try (SetpointClient client = SetpointClient.connect("127.0.0.1:" + port)) {
        List<Resource> acknowledged = new ArrayList<>();
        acknowledged.add(await().atMost(Duration.ofSeconds(30)).ignoreExceptions()
            .until(() -> client.write(artist("before", 10)), r -> true));
        assertThat(send(HttpRequest.newBuilder(URI.create(base + "/readyz"))).statusCode()).isEqualTo(200);

        disk.fill(filler);
        // The Raft log has some space preallocated; writing on uses it up, then a write fails.
        SetpointException refused = null;
        for (int i = 0; i < 200 && refused == null; i++) {
          try {
            acknowledged.add(client.write(artist("full-" + i, 256 << 10)));
          } catch (SetpointException e) {
            refused = e;
          }
        }
        assertThat(refused).as("a write failed once the disk was full").isNotNull();
        assertThat(refused.code()).as(refused.toString()).isEqualTo(Code.UNAVAILABLE);

        // Refused with the cause, not after the request timeout a write waiting on a stuck log would
        // reach (its answer would not name the disk).
        HttpResponse<String> put = send(HttpRequest.newBuilder(URI.create(base + "/api/demo/v2/Artist/while-full"))
            .header("Content-Type", "application/json")
            .PUT(HttpRequest.BodyPublishers.ofString("{\"data\": {\"name\": \"Nina\"}}")));
        assertThat(put.statusCode()).as(put.body()).isEqualTo(503);
        assertThat(put.body()).contains("the disk holding the data directory " + dataDir + " is full");
        assertThatThrownBy(() -> client.write(artist("while-full", 10)))
            .isInstanceOfSatisfying(SetpointException.class, e -> {
              assertThat(e.code()).isEqualTo(Code.UNAVAILABLE);
              assertThat(e.getMessage()).contains(dataDir + " is full");
            });

        HttpResponse<String> readyz = send(HttpRequest.newBuilder(URI.create(base + "/readyz")));
        assertThat(readyz.statusCode()).isEqualTo(503);
        assertThat(readyz.body()).contains("the disk holding the data directory " + dataDir + " is full");
        assertThat(send(HttpRequest.newBuilder(URI.create(base + "/healthz"))).statusCode())
            .as("the process is alive: not ready, not dead").isEqualTo(200);
        for (Resource r : acknowledged) {
          assertThat(client.read(r.getId())).as("reads go on").isEqualTo(r);
        }

        Files.delete(filler);
        await().atMost(Duration.ofSeconds(60))
            .until(() -> send(HttpRequest.newBuilder(URI.create(base + "/readyz"))).statusCode() == 200);
        Resource after = await().atMost(Duration.ofSeconds(30)).ignoreExceptions()
            .until(() -> client.write(artist("after-space-freed", 10)), r -> true);

        assertThat(client.read(after.getId())).isEqualTo(after);
        for (Resource r : acknowledged) {
          assertThat(client.read(r.getId())).as("every acknowledged write is kept").isEqualTo(r);
        }
      }
      agent.stop();
    }
  }
}
