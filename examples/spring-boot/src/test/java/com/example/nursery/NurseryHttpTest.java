package com.example.nursery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.example.nursery.v1.Seedling;
import com.google.protobuf.Any;
import io.setpoint.api.Ids;
import io.setpoint.api.Statuses.Conditions;
import io.setpoint.api.v1.Resource;
import io.setpoint.client.SetpointClient;
import io.setpoint.spring.test.SetpointTest;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The whole app on a real port ({@code @SpringBootTest} with a random port, through {@link
 * SetpointTest}): after a reconcile, Actuator's health says UP with the setpoint component, and
 * the Prometheus page carries the controller's meters.
 */
@SetpointTest(types = NurseryTypes.Registrar.class, webEnvironment = WebEnvironment.RANDOM_PORT)
class NurseryHttpTest {
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  @LocalServerPort
  int port;

  @Autowired
  SetpointClient client;

  @Test
  void healthAndMetricsShowTheControllerAtWork() throws Exception {
    Resource mint = client.write(Resource.newBuilder().setId(Ids.of(NurseryTypes.SEEDLING, "mint"))
        .setData(Any.pack(Seedling.newBuilder().setSpecies("Mentha spicata").build())).build());
    await().until(() -> client.findConsistent(mint.getId())
        .map(r -> r.getStatusMap().containsKey(SeedlingController.STATUS_KEY)
            && Conditions.holds(r.getStatusMap().get(SeedlingController.STATUS_KEY), "Planned"))
        .orElse(false));

    HttpResponse<String> health = get("/actuator/health");
    assertThat(health.statusCode()).isEqualTo(200);
    JsonNode body = JsonMapper.builder().build().readTree(health.body());
    assertThat(body.path("status").asString()).isEqualTo("UP");
    JsonNode setpoint = body.path("components").path("setpoint");
    assertThat(setpoint.path("status").asString()).isEqualTo("UP");
    assertThat(setpoint.path("details").path("role").asString()).isEqualTo("leader");
    assertThat(setpoint.path("details").path("controllers").has("nursery-seedling")).isTrue();

    HttpResponse<String> readiness = get("/actuator/health/readiness");
    assertThat(readiness.statusCode()).isEqualTo(200);
    assertThat(JsonMapper.builder().build().readTree(readiness.body()).path("status").asString()).isEqualTo("UP");

    HttpResponse<String> prometheus = get("/actuator/prometheus");
    assertThat(prometheus.statusCode()).isEqualTo(200);
    assertThat(prometheus.body().lines())
        .anyMatch(l -> l.startsWith("controller_runtime_reconcile_time_seconds_count{")
            && l.contains("controller=\"nursery-seedling\"") && !l.endsWith(" 0") && !l.endsWith(" 0.0"))
        .anyMatch(l -> l.startsWith("workqueue_adds_total{") && l.contains("name=\"nursery-seedling\""));
  }

  private HttpResponse<String> get(String path) throws IOException, InterruptedException {
    return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
