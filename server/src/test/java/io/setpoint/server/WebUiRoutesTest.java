package io.setpoint.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The UI's routes on an agent with ACLs on: its page for every view address, its assets, the
 * redirects, and no data without a token (the page itself holds none).
 */
class WebUiRoutesTest {
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private static Agent agent;

  @BeforeAll
  static void start() {
    agent = Agent.builder().port(0).acls(true).start();
  }

  @AfterAll
  static void stop() {
    agent.close();
  }

  private static HttpResponse<String> get(String path) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + agent.port() + path))
        .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void everyViewAddressServesThePageWithAPolicyAllowingOnlyThisOrigin() throws Exception {
    for (String path : new String[] {"/ui/", "/ui/controllers", "/ui/r/demo/v2/Artist",
        "/ui/r/demo/v2/Artist/miles?partition=default&namespace=default"}) {
      HttpResponse<String> page = get(path);
      assertThat(page.statusCode()).as(path).isEqualTo(200);
      assertThat(page.headers().firstValue("content-type")).as(path).hasValue("text/html; charset=utf-8");
      assertThat(page.headers().firstValue("content-security-policy").orElseThrow())
          .contains("default-src 'none'", "script-src 'self'", "connect-src 'self'");
      assertThat(page.body()).contains("<script type=\"module\" src=\"/ui/assets/app.js\"></script>");
    }
  }

  @Test
  void assetsAreServedWithTheirTypesAndAnUnknownOneIsNotFound() throws Exception {
    HttpResponse<String> app = get("/ui/assets/app.js");
    HttpResponse<String> view = get("/ui/assets/views/controllers.js");
    HttpResponse<String> css = get("/ui/assets/app.css");
    HttpResponse<String> missing = get("/ui/assets/nothing.js");

    assertThat(app.statusCode()).isEqualTo(200);
    assertThat(app.headers().firstValue("content-type").orElseThrow()).isEqualTo("application/javascript; charset=utf-8");
    assertThat(app.headers().firstValue("x-content-type-options")).hasValue("nosniff");
    assertThat(view.statusCode()).isEqualTo(200);
    assertThat(view.body()).contains("export function controllersView");
    assertThat(css.headers().firstValue("content-type").orElseThrow()).startsWith("text/css");
    assertThat(missing.statusCode()).isEqualTo(404);
  }

  @Test
  void theRootAndUiWithoutASlashRedirectToTheUi() throws Exception {
    for (String path : new String[] {"/", "/ui"}) {
      HttpResponse<String> answer = get(path);
      assertThat(answer.statusCode()).as(path).isEqualTo(302);
      assertThat(answer.headers().firstValue("location")).as(path).hasValue("/ui/");
    }
  }

  @Test
  void theDataTheUiReadsStillNeedsAToken() throws Exception {
    assertThat(get("/api/types").statusCode()).isEqualTo(401);
    assertThat(get("/api/controllers").statusCode()).isEqualTo(401);
  }
}
