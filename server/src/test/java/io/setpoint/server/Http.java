package io.setpoint.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublisher;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.Map;

/** A real HTTP/1.1 client for the gateway's tests: one request, its status and JSON body. */
final class Http {
  static final ObjectMapper JSON = new ObjectMapper();
  static final String JSON_TYPE = "application/json";

  private final HttpClient client;
  private final String base;

  Http(int port) {
    this(HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build(),
        "http://127.0.0.1:" + port);
  }

  /** Requests through {@code client} (an HTTPS one, say) to {@code base}, such as {@code https://localhost:8500}. */
  Http(HttpClient client, String base) {
    this.client = client;
    this.base = base;
  }

  /** What came back: the status, the content type and the body read as JSON (null when empty). */
  record Answer(int status, String contentType, String text) {
    JsonNode json() {
      try {
        return text.isEmpty() ? null : JSON.readTree(text);
      } catch (IOException e) {
        throw new AssertionError("not JSON (" + status + "): " + text, e);
      }
    }
  }

  URI uri(String pathAndQuery) {
    return URI.create(base + pathAndQuery);
  }

  Answer get(String path) {
    return send("GET", path, null, BodyPublishers.noBody(), Map.of());
  }

  Answer delete(String path) {
    return send("DELETE", path, null, BodyPublishers.noBody(), Map.of());
  }

  Answer put(String path, String json) {
    return send("PUT", path, JSON_TYPE, BodyPublishers.ofString(json), Map.of());
  }

  Answer send(String method, String path, String contentType, BodyPublisher body, Map<String, String> headers) {
    HttpRequest.Builder req = HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(10)).method(method, body);
    if (contentType != null) {
      req.header("Content-Type", contentType);
    }
    headers.forEach(req::header);
    try {
      java.net.http.HttpResponse<String> res = client.send(req.build(), BodyHandlers.ofString());
      return new Answer(res.statusCode(), res.headers().firstValue("content-type").orElse(""), res.body());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  HttpClient client() {
    return client;
  }
}
