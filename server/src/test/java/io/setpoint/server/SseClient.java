package io.setpoint.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/** Reads one server-sent-events response, event by event, over a real HTTP connection. */
final class SseClient implements AutoCloseable {
  /** One event: its SSE id (null when it has none), name and data. */
  record Event(String id, String event, String data) {
    JsonNode json() {
      try {
        return Http.JSON.readTree(data);
      } catch (IOException e) {
        throw new AssertionError("event data is not JSON: " + data, e);
      }
    }
  }

  private static final Event END = new Event(null, "<end of stream>", "");

  private final HttpResponse<Stream<String>> response;
  private final BlockingQueue<Event> events = new LinkedBlockingQueue<>();

  private SseClient(HttpResponse<Stream<String>> response) {
    this.response = response;
    Thread.ofVirtual().name("sse-reader").start(this::read);
  }

  /** Opens {@code http}'s {@code path} with the given extra headers. */
  static SseClient open(Http http, String path, Map<String, String> headers) throws IOException, InterruptedException {
    HttpRequest.Builder req = HttpRequest.newBuilder(http.uri(path)).header("Accept", "text/event-stream").GET();
    headers.forEach(req::header);
    return new SseClient(http.client().send(req.build(), BodyHandlers.ofLines()));
  }

  int status() {
    return response.statusCode();
  }

  String contentType() {
    return response.headers().firstValue("content-type").orElse("");
  }

  /** The next event, failing the test if none comes within 10 seconds. */
  Event next() throws InterruptedException {
    Event e = events.poll(10, TimeUnit.SECONDS);
    assertThat(e).as("an event within 10 seconds").isNotNull();
    return e;
  }

  /** The next event, which must be named {@code event}. */
  Event next(String event) throws InterruptedException {
    Event e = next();
    assertThat(e.event()).as("event %s", e).isEqualTo(event);
    return e;
  }

  /** Waits for the server to end the stream, failing on any further event. */
  void awaitEnd() throws InterruptedException {
    assertThat(next()).isEqualTo(END);
  }

  private void read() {
    String id = null;
    String name = null;
    StringBuilder data = new StringBuilder();
    try (Stream<String> lines = response.body()) {
      for (String line : (Iterable<String>) lines::iterator) {
        if (line.isEmpty()) {
          if (name != null || !data.isEmpty()) {
            events.add(new Event(id, name == null ? "message" : name, data.toString()));
          }
          id = null;
          name = null;
          data.setLength(0);
        } else if (line.startsWith("id:")) {
          id = line.substring(3).trim();
        } else if (line.startsWith("event:")) {
          name = line.substring(6).trim();
        } else if (line.startsWith("data:")) {
          data.append(data.isEmpty() ? "" : "\n").append(line.substring(5).stripLeading());
        }
      }
    } catch (RuntimeException e) {
      // the stream was closed under us
    }
    events.add(END);
  }

  @Override
  public void close() {
    response.body().close();
  }
}
