package io.setpoint.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.Status;
import io.setpoint.api.acl.v1.CreateTokenRequest;
import io.setpoint.client.SetpointClient;
import io.setpoint.client.SetpointException;
import io.setpoint.controller.time.ManualTicker;
import io.setpoint.demo.DemoTypes;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The per-client request rate limit of a real agent with ACLs on, on a ticker the test moves: a
 * token over its limit is refused over gRPC and HTTP with when to retry, while another token keeps
 * its own share, and made-up tokens share their address's.
 */
class RequestRateLimitTest {
  private final ManualTicker ticker = new ManualTicker();
  private final HttpClient http = HttpClient.newHttpClient();
  private Agent agent;
  private String address;
  private String flooding;
  private String other;

  @BeforeEach
  void start() {
    agent = Agent.builder().port(0).acls(true).types(DemoTypes::register).ticker(ticker)
        .clientRateLimit(2, 3).start();
    address = "127.0.0.1:" + agent.port();
    try (SetpointClient anonymous = client("")) {
      other = anonymous.bootstrapAcls().getSecret();
    }
    try (SetpointClient management = client(other)) {
      flooding = management.createToken(CreateTokenRequest.newBuilder().setManagement(true).build()).getSecret();
    }
    ticker.advance(Duration.ofSeconds(10)); // every bucket full again
  }

  @AfterEach
  void stop() {
    agent.close();
  }

  private SetpointClient client(String token) {
    SetpointClient.Builder builder = SetpointClient.builder().address(address);
    return (token.isEmpty() ? builder : builder.token(token)).build();
  }

  private HttpResponse<String> get(String path, String token) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create("http://" + address + path))
        .header("Authorization", "Bearer " + token).timeout(Duration.ofSeconds(10)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void aClientOverItsLimitIsRefusedWithWhenToRetryWhileAnotherKeepsItsShare() throws Exception {
    try (SetpointClient floods = client(flooding); SetpointClient reads = client(other)) {
      for (int i = 0; i < 3; i++) { // the burst
        floods.types();
      }
      assertThatThrownBy(floods::types).isInstanceOfSatisfying(SetpointException.class, e -> {
        assertThat(e.code()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
        assertThat(e.getMessage()).contains("this client is over its rate limit; retry after 1 s");
      });
      HttpResponse<String> refused = get("/api/types", flooding);
      assertThat(refused.statusCode()).isEqualTo(429);
      assertThat(refused.headers().firstValue("retry-after")).hasValue("1");
      assertThat(refused.body()).isEqualTo(
          "{\"code\":\"RESOURCE_EXHAUSTED\",\"message\":\"this client is over its rate limit; retry after 1 s\"}");

      // Another client has its own bucket; probes are not limited.
      for (int i = 0; i < 3; i++) {
        assertThat(reads.types().getTypesCount()).isPositive();
      }
      assertThat(http.send(HttpRequest.newBuilder(URI.create("http://" + address + "/readyz")).build(),
          HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);

      // Half a second refills one request at 2 per second.
      ticker.advance(Duration.ofMillis(500));
      assertThat(floods.types().getTypesCount()).isPositive();
      assertThatThrownBy(floods::types).isInstanceOf(SetpointException.class);
      assertThat(get("/metrics", "x").body()).containsPattern("setpoint_requests_rate_limited_total [1-9]");
    }
  }

  @Test
  void madeUpTokensShareTheirAddresssBucketInsteadOfGettingOneEach() {
    for (int i = 0; i < 3; i++) {
      try (SetpointClient madeUp = client("spt_made_up_" + i)) {
        assertThatThrownBy(madeUp::types).isInstanceOfSatisfying(SetpointException.class,
            e -> assertThat(e.code()).isEqualTo(Status.Code.UNAUTHENTICATED));
      }
    }
    try (SetpointClient another = client("spt_made_up_again")) {
      assertThatThrownBy(another::types).isInstanceOfSatisfying(SetpointException.class,
          e -> assertThat(e.code()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED));
    }
    try (SetpointClient known = client(other)) {
      assertThat(known.types().getTypesCount()).as("a known token has its own bucket").isPositive();
    }
  }
}
