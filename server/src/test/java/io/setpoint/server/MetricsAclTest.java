package io.setpoint.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.setpoint.api.acl.v1.CreateTokenRequest;
import io.setpoint.client.SetpointClient;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** {@code Agent.Builder.metricsAcl}: /metrics for a token with operator:read only, probes still open. */
class MetricsAclTest {
  private final HttpClient http = HttpClient.newHttpClient();

  private HttpResponse<String> get(int port, String path, String token) throws Exception {
    HttpRequest.Builder req = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(Duration.ofSeconds(10));
    if (token != null) {
      req.header("Authorization", "Bearer " + token);
    }
    return http.send(req.build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void metricsNeedATokenWithOperatorReadWhileProbesStayOpen() throws Exception {
    try (Agent agent = Agent.builder().port(0).acls(true).metricsAcl(true).start()) {
      String management;
      String plain;
      try (SetpointClient anonymous = SetpointClient.connect("127.0.0.1:" + agent.port())) {
        management = anonymous.bootstrapAcls().getSecret();
      }
      try (SetpointClient admin = SetpointClient.builder().address("127.0.0.1:" + agent.port()).token(management).build()) {
        plain = admin.createToken(CreateTokenRequest.newBuilder().setName("nobody").build()).getSecret();
      }

      HttpResponse<String> none = get(agent.port(), "/metrics", null);
      HttpResponse<String> madeUp = get(agent.port(), "/metrics", "spt_made_up");
      HttpResponse<String> lacking = get(agent.port(), "/metrics", plain);
      HttpResponse<String> allowed = get(agent.port(), "/metrics", management);

      assertThat(none.statusCode()).isEqualTo(401);
      assertThat(none.body()).startsWith("/metrics needs an ACL token with operator:read (Authorization: Bearer): no ACL token");
      assertThat(madeUp.statusCode()).isEqualTo(401);
      assertThat(lacking.statusCode()).isEqualTo(403);
      assertThat(lacking.body()).isEqualTo("/metrics needs operator:read, which this token lacks\n");
      assertThat(allowed.statusCode()).isEqualTo(200);
      assertThat(allowed.body()).contains("setpoint_server_requests_total");
      assertThat(get(agent.port(), "/readyz", null).statusCode()).isEqualTo(200);
    }
  }

  @Test
  void withoutItMetricsNeedNoToken() throws Exception {
    try (Agent agent = Agent.builder().port(0).acls(true).start()) {
      assertThat(get(agent.port(), "/metrics", null).statusCode()).isEqualTo(200);
    }
  }
}
