package io.setpoint.server;

import static io.setpoint.server.AclFixture.rule;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpRequest.BodyPublishers;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The UI's operator routes with ACLs on: 401 without a valid token, 403 for a token that may read
 * resources but lacks {@code operator:read}, 200 for one with it.
 */
class HttpOperatorAclTest {
  @RegisterExtension static final LiveAgent live = LiveAgent.withAcls();
  private static AclFixture acl;
  private static Http http;

  @BeforeAll
  static void tokens() {
    acl = new AclFixture(live);
    http = new Http(live.agent().port());
  }

  private static Http.Answer get(String token, String path) {
    Map<String, String> headers = token == null ? Map.of() : Map.of("Authorization", "Bearer " + token);
    return http.send("GET", path, null, BodyPublishers.noBody(), headers);
  }

  @Test
  void theClusterAndItsMetricsNeedOperatorRead() {
    String reader = acl.tokenWith("artist-reader", "", rule("demo.v2.Artist", "", "read", "list"));
    String operator = acl.tokenWith("operator-reader", "read");
    for (String path : new String[] {"/api/operator/cluster", "/api/operator/metrics"}) {
      assertThat(get(null, path).status()).as(path).isEqualTo(401);
      Http.Answer denied = get(reader, path);
      assertThat(denied.status()).as(path + ": " + denied.text()).isEqualTo(403);
      assertThat(denied.json().get("code").asText()).isEqualTo("PERMISSION_DENIED");
      assertThat(denied.json().get("message").asText()).contains("operator:read");
      Http.Answer allowed = get(operator, path);
      assertThat(allowed.status()).as(path + ": " + allowed.text()).isEqualTo(200);
    }
    assertThat(get(operator, "/api/operator/cluster").json().get("ready").asBoolean()).isTrue();
  }
}
