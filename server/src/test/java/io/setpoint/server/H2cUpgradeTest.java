package io.setpoint.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The JDK's {@code HttpClient} upgrades each new plain-HTTP connection to HTTP/2 ({@code Upgrade:
 * h2c}) and, without {@link H2cPrefaceGate}, lost the end of about one quick, long response in a
 * hundred on such a connection.
 */
class H2cUpgradeTest {
  private static final int CONNECTIONS = 300;

  @Test
  void everyUpgradedConnectionGetsAllOfItsFirstResponse() throws Exception {
    try (Agent agent = Agent.builder().port(0).start()) {
      HttpRequest metrics = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + agent.port() + "/metrics"))
          .timeout(Duration.ofSeconds(10))
          .build();
      for (int i = 0; i < CONNECTIONS; i++) {
        try (HttpClient fresh = HttpClient.newHttpClient()) {
          HttpResponse<String> response = fresh.send(metrics, HttpResponse.BodyHandlers.ofString());
          assertThat(response.version()).as("connection %d", i).isEqualTo(HttpClient.Version.HTTP_2);
          assertThat(response.statusCode()).as("connection %d", i).isEqualTo(200);
          // Longer than one HTTP/2 frame (16 KiB), so it leaves in several writes.
          assertThat(response.body()).as("connection %d", i).hasSizeGreaterThan(16_384).contains("# TYPE jvm_");
        }
      }
    }
  }
}
