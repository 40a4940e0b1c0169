package io.setpoint.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpRequest.BodyPublishers;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code If-None-Match: *} (create only) and {@code If-Match: VERSION} (CAS) on the gateway's writes. */
class HttpPreconditionsTest {
  private static final String MILES = "/api/demo/v2/Artist/miles";
  private static final String BODY = "{\"data\":{\"name\":\"Miles\"}}";

  @RegisterExtension final LiveAgent live = new LiveAgent();

  private Http.Answer put(String path, String body, Map<String, String> headers) {
    return new Http(live.agent().port()).send("PUT", path, Http.JSON_TYPE, BodyPublishers.ofString(body), headers);
  }

  private Http.Answer delete(String path, Map<String, String> headers) {
    return new Http(live.agent().port()).send("DELETE", path, null, BodyPublishers.noBody(), headers);
  }

  @Test
  void ifNoneMatchStarCreatesAFreeNameAndAnswers409ForATakenOne() {
    Http.Answer created = put(MILES, BODY, Map.of("If-None-Match", "*"));
    assertThat(created.status()).isEqualTo(200);
    byte[] before = live.storeBytes();

    Http.Answer again = put(MILES, "{\"data\":{\"name\":\"Other\"}}", Map.of("If-None-Match", " * "));
    assertThat(again.status()).isEqualTo(409);
    assertThat(again.json().get("code").asText()).isEqualTo("ALREADY_EXISTS");
    assertThat(again.json().get("message").asText()).contains("miles already exists");
    assertThat(live.storeBytes()).isEqualTo(before);
  }

  @Test
  void aPutSentAgainWithItsIdempotencyKeyIsAnsweredWithTheFirstsResult() {
    String version = put(MILES, BODY, Map.of()).json().get("version").asText();
    Map<String, String> headers = Map.of("If-Match", version, "Idempotency-Key", "put-1");
    Http.Answer first = put(MILES, "{\"data\":{\"name\":\"Davis\"}}", headers);
    assertThat(first.status()).isEqualTo(200);
    byte[] before = live.storeBytes();

    Http.Answer again = put(MILES, "{\"data\":{\"name\":\"Davis\"}}", headers);
    assertThat(again.status()).isEqualTo(200);
    assertThat(again.json()).isEqualTo(first.json());
    assertThat(live.storeBytes()).isEqualTo(before);

    Http.Answer bad = put(MILES, BODY, Map.of("Idempotency-Key", "not one"));
    assertThat(bad.status()).isEqualTo(400);
    assertThat(bad.json().get("message").asText()).contains("Idempotency-Key").contains("[A-Za-z0-9._~:-]");
    assertThat(live.storeBytes()).isEqualTo(before);
  }

  @Test
  void ifMatchIsACompareAndSwapAnsweredLikeTheVersionParameter() {
    JsonNode created = put(MILES, BODY, Map.of()).json();
    String version = created.get("version").asText();
    byte[] before = live.storeBytes();

    Http.Answer stale = put(MILES, "{\"data\":{\"name\":\"Stale\"}}", Map.of("If-Match", "\"999\""));
    assertThat(stale.status()).isEqualTo(409);
    assertThat(stale.json().get("code").asText()).isEqualTo("ABORTED");
    Http.Answer staleDelete = delete(MILES, Map.of("If-Match", "999"));
    assertThat(staleDelete.status()).isEqualTo(409);
    assertThat(live.storeBytes()).isEqualTo(before);

    Http.Answer current = put(MILES, "{\"data\":{\"name\":\"Current\"}}", Map.of("If-Match", "\"" + version + "\""));
    assertThat(current.status()).isEqualTo(200);
    assertThat(current.json().at("/data/name").asText()).isEqualTo("Current");
    String next = current.json().get("version").asText();
    assertThat(delete(MILES, Map.of("If-Match", next)).status()).isEqualTo(200);
    assertThat(new Http(live.agent().port()).get(MILES).status()).isEqualTo(404);
  }

  @Test
  void anyOtherValueOfTheHeadersIs400NamingTheHeaderAndStoresNothing() {
    String version = put(MILES, BODY, Map.of()).json().get("version").asText();
    byte[] before = live.storeBytes();
    record Bad(String method, String header, String value) {}
    for (Bad bad : new Bad[] {
        new Bad("PUT", "If-None-Match", "\"1\""),
        new Bad("PUT", "If-None-Match", "W/\"1\""),
        new Bad("PUT", "If-Match", "*"),
        new Bad("PUT", "If-Match", "W/\"" + version + "\""),
        new Bad("PUT", "If-Match", "\"" + version + "\", \"7\""),
        new Bad("PUT", "If-Match", "0"),
        new Bad("PUT", "If-Match", "abc"),
        new Bad("DELETE", "If-None-Match", "*"),
    }) {
      Http.Answer answer = bad.method().equals("PUT")
          ? put(MILES, BODY, Map.of(bad.header(), bad.value()))
          : delete(MILES, Map.of(bad.header(), bad.value()));
      assertThat(answer.status()).as("%s", bad).isEqualTo(400);
      assertThat(answer.json().get("field").asText()).as("%s", bad).isEqualTo(bad.header());
    }
    // If-Match and the version parameter must agree when both are given.
    Http.Answer contradiction = put(MILES + "?version=" + version, BODY, Map.of("If-Match", "12345"));
    assertThat(contradiction.status()).isEqualTo(400);
    assertThat(contradiction.json().get("field").asText()).isEqualTo("If-Match");
    // A version in the body contradicts create-only.
    Http.Answer createWithVersion = put(MILES, "{\"version\":\"" + version + "\",\"data\":{\"name\":\"M\"}}",
        Map.of("If-None-Match", "*"));
    assertThat(createWithVersion.status()).isEqualTo(400);
    assertThat(createWithVersion.json().get("field").asText()).isEqualTo("resource.version");
    assertThat(live.storeBytes()).isEqualTo(before);
  }
}
