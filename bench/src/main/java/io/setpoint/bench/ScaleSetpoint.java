package io.setpoint.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.setpoint.loadgen.AgentProcess;
import io.setpoint.loadgen.LocalCluster;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Setpoint in {@code bench scale}: one durable agent ({@code agent -data-dir}) started by {@link
 * AgentProcess} with the launcher's JVM flags and no others, so its heap is sized as a user's is;
 * demo Artists written with {@code PUT /api/demo/v2/Artist/NAME}, listed with {@code page_size} and
 * {@code page_token}, watched over server-sent events, backed up with {@code setpoint snapshot save}
 * run as a new JVM, and its live heap read from {@code /metrics} right after {@code jcmd GC.run}.
 */
final class ScaleSetpoint implements ScaleSystem {
  private static final String ARTISTS = "/api/demo/v2/Artist";
  private static final Pattern SAVED = Pattern.compile("saved .*: ([0-9]+) resources at revision");
  private static final ObjectMapper JSON = new ObjectMapper();

  @Override
  public String label() {
    return "setpoint (raft)";
  }

  @Override
  public LocalCluster start(Duration timeout) throws InterruptedException {
    return AgentProcess.start(new AgentProcess.Config(AgentProcess.Mode.DURABLE, 1, 0, false, List.of(), List.of(), timeout));
  }

  @Override
  public HttpRequest write(String endpoint, int i, int valueBytes) {
    return HttpRequest.newBuilder(URI.create("http://" + endpoint + ARTISTS + "/" + ScaleLoad.name(i)))
        .timeout(ScaleLoad.REQUEST_TIMEOUT)
        .header("Content-Type", "application/json")
        .PUT(HttpRequest.BodyPublishers.ofString(ScaleLoad.document(i, valueBytes)))
        .build();
  }

  @Override
  public ScaleResult.Listed list(HttpClient http, String endpoint, Duration timeout) throws IOException, InterruptedException {
    long start = System.nanoTime();
    long deadline = start + timeout.toNanos();
    long listed = 0;
    int pages = 0;
    String token = "";
    do {
      String uri = "http://" + endpoint + ARTISTS + "?page_size=" + PAGE
          + (token.isEmpty() ? "" : "&page_token=" + URLEncoder.encode(token, StandardCharsets.UTF_8));
      HttpResponse<byte[]> page = http.send(HttpRequest.newBuilder(URI.create(uri)).timeout(ScaleLoad.REQUEST_TIMEOUT).GET().build(),
          HttpResponse.BodyHandlers.ofByteArray());
      if (page.statusCode() != 200) {
        throw new IOException("GET " + uri + " answered " + page.statusCode() + ": " + new String(page.body(), StandardCharsets.UTF_8));
      }
      JsonNode body = JSON.readTree(page.body());
      listed += body.path("resources").size();
      pages++;
      token = body.path("nextPageToken").asText("");
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("the list did not end within " + timeout + " (" + listed + " listed)");
      }
    } while (!token.isEmpty());
    return new ScaleResult.Listed(Duration.ofNanos(System.nanoTime() - start), pages, listed);
  }

  @Override
  public ScaleResult.Backup backup(String endpoint, Path file, Duration timeout) throws IOException, InterruptedException {
    List<String> args = List.of("snapshot", "save", file.toString(), "-address", endpoint);
    Bench.Ran ran = Bench.run("setpoint " + String.join(" ", args), Bench.cliCommand(args), timeout);
    Matcher saved = SAVED.matcher(ran.output());
    if (!saved.find()) {
      throw new IllegalStateException("setpoint snapshot save printed no 'saved ...: N resources': " + ran.output().strip());
    }
    return new ScaleResult.Backup(ran.took(), Files.size(file), Long.parseLong(saved.group(1)));
  }

  @Override
  public long liveHeap(HttpClient http, LocalCluster server) throws IOException, InterruptedException {
    return AgentGauges.afterFullGc(http, server.endpoints().get(0), "", server.pids().get(0)).heapUsed();
  }

  /**
   * Opens {@code ?watch=true} and counts the {@code upsert} events until {@code end_of_snapshot}.
   * The stream is read on a thread of its own; one that stalls past {@code timeout} is left to end
   * when the server stops.
   */
  @Override
  public ScaleResult.Watched watchSnapshot(HttpClient http, String endpoint, Duration timeout)
      throws IOException, InterruptedException {
    HttpRequest request = HttpRequest.newBuilder(URI.create("http://" + endpoint + ARTISTS + "?watch=true"))
        .timeout(ScaleLoad.REQUEST_TIMEOUT).GET().build();
    AtomicLong events = new AtomicLong();
    AtomicReference<Object> outcome = new AtomicReference<>();
    long start = System.nanoTime();
    Thread reader = Thread.ofVirtual().name("bench-scale-watch").start(() -> {
      try {
        HttpResponse<Stream<String>> response = http.send(request, HttpResponse.BodyHandlers.ofLines());
        try (Stream<String> lines = response.body()) {
          if (response.statusCode() != 200) {
            throw new IOException("GET " + request.uri() + " answered " + response.statusCode());
          }
          for (String line : (Iterable<String>) lines::iterator) {
            if (!line.startsWith("event:")) {
              continue;
            }
            String event = line.substring("event:".length()).strip();
            if (event.equals("end_of_snapshot")) {
              outcome.set(Duration.ofNanos(System.nanoTime() - start));
              return;
            }
            if (!event.equals("upsert")) {
              throw new IOException("the watch sent '" + event + "' before its snapshot ended");
            }
            events.incrementAndGet();
          }
          throw new IOException("the watch ended before its snapshot did");
        }
      } catch (IOException | RuntimeException e) {
        outcome.set(e);
      } catch (InterruptedException e) {
        outcome.set(e);
      }
    });
    if (!reader.join(timeout)) {
      throw new IllegalStateException("the watch snapshot did not end within " + timeout + " (" + events.get() + " events)");
    }
    if (outcome.get() instanceof Duration took) {
      return new ScaleResult.Watched(took, events.get());
    }
    throw new IOException("watching " + request.uri() + ": " + outcome.get(), (Throwable) outcome.get());
  }
}
