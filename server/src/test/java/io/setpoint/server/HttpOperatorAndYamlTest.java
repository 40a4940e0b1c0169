package io.setpoint.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.setpoint.api.operator.v1.ClusterStatus;
import io.setpoint.api.operator.v1.GetClusterStatusRequest;
import io.setpoint.api.operator.v1.OperatorServiceGrpc;
import java.net.http.HttpRequest.BodyPublishers;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The gateway's operator routes and YAML on an in-memory agent: the cluster status matches the
 * gRPC call's (one member, not replicated, ready), the meter history answers, and a resource is
 * dry-run, created and read back as YAML, with errors as JSON naming the field and rule.
 */
class HttpOperatorAndYamlTest {
  @RegisterExtension static final LiveAgent live = new LiveAgent();
  private static Http http;
  private static final String YAML = "application/yaml";

  @BeforeAll
  static void client() {
    http = new Http(live.agent().port());
  }

  @Test
  void theClusterOfAnInMemoryAgentIsOneReadyMemberNotReplicatedAsOverGrpc() {
    Http.Answer answer = http.get("/api/operator/cluster");
    assertThat(answer.status()).as(answer.text()).isEqualTo(200);
    JsonNode cluster = answer.json();
    assertThat(cluster.get("replicated")).isNull(); // false: the default, left out
    assertThat(cluster.get("answeredBy").asText()).isEqualTo("memory");
    assertThat(cluster.get("ready").asBoolean()).isTrue();
    assertThat(cluster.get("readiness").asText()).isEqualTo("ok");
    assertThat(cluster.get("peers")).hasSize(1);
    assertThat(cluster.at("/peers/0/leader").asBoolean()).isTrue();

    ClusterStatus grpc = OperatorServiceGrpc.newBlockingStub(live.channel())
        .getClusterStatus(GetClusterStatusRequest.getDefaultInstance());
    assertThat(grpc.getAnsweredBy()).isEqualTo("memory");
    assertThat(grpc.getReplicated()).isFalse();
    assertThat(grpc.getPeersCount()).isEqualTo(1);
    assertThat(grpc.getReady()).isTrue();

    Http.Answer metrics = http.get("/api/operator/metrics");
    assertThat(metrics.status()).as(metrics.text()).isEqualTo(200);
    assertThat(metrics.json().get("window").asInt()).isEqualTo(180);
    assertThat(metrics.json().get("intervalSeconds").asDouble()).isEqualTo(5.0);
    assertThat(metrics.json().get("samples").isArray()).isTrue();

    assertThat(http.send("POST", "/api/operator/cluster", null, BodyPublishers.noBody(), Map.of()).status()).isEqualTo(405);
    assertThat(http.get("/api/operator/nothing").status()).isEqualTo(404);
    Http.Answer unknown = http.get("/api/operator/cluster?verbose=true");
    assertThat(unknown.status()).isEqualTo(400);
    assertThat(unknown.json().at("/violations/0/field").asText()).isEqualTo("verbose");
  }

  @Test
  void aResourceIsDryRunCreatedAndReadAsYaml() {
    String path = "/api/demo/v2/Artist/yaml-nina";
    Http.Answer invalid = putYaml(path + "?dry_run=true", "data:\n  name: Nina Simone\n  label: Not A Label\n", Map.of());
    assertThat(invalid.status()).as(invalid.text()).isEqualTo(400);
    assertThat(invalid.contentType()).startsWith("application/json");
    assertThat(invalid.json().at("/violations/0/field").asText()).endsWith("label");
    assertThat(invalid.json().at("/violations/0/rule").asText()).isEqualTo("dns-label");

    Http.Answer notYaml = putYaml(path, "data: [unclosed\n", Map.of());
    assertThat(notYaml.status()).as(notYaml.text()).isEqualTo(400);
    assertThat(notYaml.json().at("/violations/0/rule").asText()).isEqualTo("yaml");
    assertThat(notYaml.json().at("/violations/0/description").asText()).contains("not valid YAML").contains("line");

    String document = "metadata: {team: jazz}\ndata:\n  name: Nina Simone\n  discography: [Little Girl Blue]\n";
    Http.Answer admitted = putYaml(path + "?dry_run=true", document, Map.of());
    assertThat(admitted.status()).as(admitted.text()).isEqualTo(200);
    assertThat(admitted.contentType()).startsWith("application/yaml");
    assertThat(admitted.text()).contains("name: Nina Simone").contains("- Little Girl Blue");
    assertThat(http.get(path).status()).isEqualTo(404); // a dry run stores nothing

    Http.Answer created = putYaml(path, document, Map.of("If-None-Match", "*"));
    assertThat(created.status()).as(created.text()).isEqualTo(200);
    Http.Answer read = http.send("GET", path, null, BodyPublishers.noBody(), Map.of("Accept", YAML));
    assertThat(read.contentType()).startsWith("application/yaml");
    String version = http.get(path).json().get("version").asText();
    // Numbers-as-strings stay strings, so the document writes back as it was read.
    assertThat(read.text()).contains("version: \"" + version + "\"").contains("team: jazz");

    Http.Answer again = putYaml(path, read.text().replace("Nina Simone", "Nina"), Map.of());
    assertThat(again.status()).as(again.text()).isEqualTo(200);
    Http.Answer stale = putYaml(path, read.text(), Map.of());
    assertThat(stale.status()).isEqualTo(409);
    assertThat(stale.json().get("code").asText()).isEqualTo("ABORTED");
  }

  private static Http.Answer putYaml(String path, String yaml, Map<String, String> headers) {
    Map<String, String> all = new java.util.HashMap<>(headers);
    all.put("Accept", YAML);
    return http.send("PUT", path, YAML, BodyPublishers.ofString(yaml), all);
  }
}
