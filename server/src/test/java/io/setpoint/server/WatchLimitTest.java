package io.setpoint.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.grpc.Status;
import io.setpoint.api.Tenancies;
import io.setpoint.api.v1.WatchListRequest;
import io.setpoint.client.SetpointClient;
import io.setpoint.client.SetpointException;
import io.setpoint.client.Watch;
import io.setpoint.demo.DemoTypes;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** {@code Agent.Builder.maxWatchesPerClient}: a client's watch past the cap is refused, over gRPC and HTTP, until one ends. */
class WatchLimitTest {
  private final HttpClient http = HttpClient.newHttpClient();

  private static WatchListRequest artists() {
    return WatchListRequest.newBuilder().setType(DemoTypes.ARTIST).setTenancy(Tenancies.of("default", "default")).build();
  }

  private HttpResponse<InputStream> sse(int port) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/demo/v2/Artist?watch=true"))
        .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofInputStream());
  }

  @Test
  void aWatchPastTheCapIsRefusedUntilOneOfTheClientsWatchesEnds() throws Exception {
    try (Agent agent = Agent.builder().port(0).acls(false).types(DemoTypes::register).maxWatchesPerClient(2).start();
        SetpointClient client = SetpointClient.connect("127.0.0.1:" + agent.port())) {
      Watch first = client.watch(artists());
      Watch second = client.watch(artists());
      assertThat(first.next().hasEndOfSnapshot()).isTrue();
      assertThat(second.next().hasEndOfSnapshot()).isTrue();

      try (Watch third = client.watch(artists())) {
        assertThatThrownBy(third::hasNext).isInstanceOfSatisfying(SetpointException.class, e -> {
          assertThat(e.code()).as(e.getMessage()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
          assertThat(e.getMessage()).contains("this client has 2 watches open, the most it may; close one first");
        });
      }
      HttpResponse<InputStream> refused = sse(agent.port());
      assertThat(refused.statusCode()).isEqualTo(429);
      assertThat(new String(refused.body().readAllBytes())).contains("\"code\":\"RESOURCE_EXHAUSTED\"");
      assertThat(client.types().getTypesCount()).as("other calls go on").isPositive();

      first.close();
      HttpResponse<InputStream> admitted = await().atMost(Duration.ofSeconds(10))
          .until(() -> sse(agent.port()), r -> r.statusCode() == 200);
      admitted.body().close();
      second.close();
    }
  }
}
