package io.setpoint.storage.raft;

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
import io.setpoint.server.Agent;
import io.setpoint.testkit.FreePorts;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * An agent over a durable store whose state machine dies (as Ratis's did of OutOfMemoryError)
 * leaves {@code /readyz} and fails writes fast saying why, instead of staying ready while every
 * write fails. The failure is injected into applying through {@link RaftBackend}'s package-private
 * test hook, which is why this test of the agent lives in the store's package.
 */
@Timeout(60)
class FatalApplyAgentTest {

  @TempDir Path dataDir;

  private static Resource artist(String name) {
    return Resource.newBuilder()
        .setId(Ids.of(DemoTypes.ARTIST, name))
        .setData(Any.pack(Artist.newBuilder().setName(name).build()))
        .build();
  }

  @Test
  void aStateMachineThatDiesTakesTheAgentOutOfReadyzAndWritesFailWithTheCause() throws Exception {
    int raftPort = FreePorts.loopback();
    RaftConfig config = RaftConfig.of("fatal1", dataDir, raftPort, Map.of("fatal1", "127.0.0.1:" + raftPort));
    RaftBackend store = RaftBackend.start(config, batch -> {
      // A blind write travels as a put, a write with a version as a compare-and-swap write.
      if (batch.getOpsList().stream()
          .anyMatch(op -> (op.hasPut() ? op.getPut().getResource() : op.getWrite()).getId().getName().equals("poison"))) {
        throw new OutOfMemoryError("injected into applying");
      }
    });
    HttpClient http = HttpClient.newHttpClient();
    try (Agent agent = Agent.builder().port(0).acls(false).types(DemoTypes::register).backend(store).start();
        SetpointClient client = SetpointClient.connect("127.0.0.1:" + agent.port())) {
      URI readyz = URI.create("http://127.0.0.1:" + agent.port() + "/readyz");
      Resource kept = await().atMost(Duration.ofSeconds(30)).ignoreExceptions()
          .until(() -> client.write(artist("kept")), r -> true);
      assertThat(http.send(HttpRequest.newBuilder(readyz).build(), HttpResponse.BodyHandlers.ofString()).statusCode())
          .isEqualTo(200);

      assertThatThrownBy(() -> client.write(artist("poison"))).isInstanceOf(SetpointException.class);

      HttpResponse<String> notReady = http.send(HttpRequest.newBuilder(readyz).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(notReady.statusCode()).isEqualTo(503);
      assertThat(notReady.body()).contains("Raft stopped on this member", "OutOfMemoryError: injected into applying", "restart the agent");
      // Answered at once with the cause, not after the write's deadline (DEADLINE_EXCEEDED); the
      // client sends an UNAVAILABLE write again a few times, so how long it takes is not asserted.
      assertThatThrownBy(() -> client.write(artist("after")))
          .isInstanceOfSatisfying(SetpointException.class, e -> {
            assertThat(e.code()).isEqualTo(Code.UNAVAILABLE);
            assertThat(e.getMessage()).contains("Raft stopped on this member", "restart the agent");
          });
      assertThat(client.read(kept.getId())).as("reads go on").isEqualTo(kept);
    }
  }
}
