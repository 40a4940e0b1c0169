package io.setpoint.server;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

/** How many times the cascade looked at a tombstone and came back later, from an agent's /metrics. */
final class CascadeWaits {
  private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  private CascadeWaits() {}

  static double of(Agent agent) throws Exception {
    String metrics = HTTP.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + agent.port() + "/metrics")).build(),
        HttpResponse.BodyHandlers.ofString()).body();
    return metrics.lines()
        .filter(l -> l.startsWith("controller_runtime_reconcile_total{")
            && l.contains("controller=\"" + Cascade.NAME + "\"") && l.contains("result=\"requeue_after\""))
        .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
        .sum();
  }
}
