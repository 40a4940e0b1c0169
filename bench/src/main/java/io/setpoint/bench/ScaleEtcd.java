package io.setpoint.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.setpoint.loadgen.EtcdProcess;
import io.setpoint.loadgen.LocalCluster;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;

/**
 * etcd in {@code bench scale}: one member started by {@link EtcdProcess} with etcd's defaults,
 * written through its JSON gateway ({@code POST /v3/kv/put}, key {@code /setpoint-bench/NAME} and
 * the same document as Setpoint's as the value), listed with {@code POST /v3/kv/range} in pages of
 * {@link #PAGE} (each from the key after the last one, at the first page's revision), and backed up
 * with {@code etcdctl snapshot save}. It has no live heap to read here and no watch snapshot.
 */
final class ScaleEtcd implements ScaleSystem {
  private static final String PREFIX = "/setpoint-bench/";
  /** The end of the keys under {@link #PREFIX}: its last byte plus one. */
  private static final String PREFIX_END = "/setpoint-bench0";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Base64.Encoder B64 = Base64.getEncoder();

  private final Path binary;
  private final String label;
  /** etcdctl, or null when it is not installed: the backup is then not measured. */
  private final Path etcdctl;

  ScaleEtcd(Path binary, String label, Path etcdctl) {
    this.binary = binary;
    this.label = label;
    this.etcdctl = etcdctl;
  }

  @Override
  public String label() {
    return label;
  }

  @Override
  public LocalCluster start(Duration timeout) throws InterruptedException {
    return EtcdProcess.start(binary, 1, 0, timeout);
  }

  @Override
  public HttpRequest write(String endpoint, int i, int valueBytes) {
    ObjectNode put = JSON.createObjectNode()
        .put("key", b64(PREFIX + ScaleLoad.name(i)))
        .put("value", b64(ScaleLoad.document(i, valueBytes)));
    return post(endpoint, "/v3/kv/put", put);
  }

  @Override
  public ScaleResult.Listed list(HttpClient http, String endpoint, Duration timeout) throws IOException, InterruptedException {
    long start = System.nanoTime();
    long deadline = start + timeout.toNanos();
    long listed = 0;
    int pages = 0;
    String from = PREFIX;
    long revision = 0;
    for (boolean more = true; more; ) {
      ObjectNode range = JSON.createObjectNode().put("key", b64(from)).put("range_end", b64(PREFIX_END)).put("limit", PAGE);
      if (revision > 0) {
        range.put("revision", revision);
      }
      HttpResponse<byte[]> page = http.send(post(endpoint, "/v3/kv/range", range), HttpResponse.BodyHandlers.ofByteArray());
      if (page.statusCode() != 200) {
        throw new IOException("POST /v3/kv/range answered " + page.statusCode() + ": " + new String(page.body(), StandardCharsets.UTF_8));
      }
      JsonNode body = JSON.readTree(page.body());
      revision = body.path("header").path("revision").asLong();
      JsonNode kvs = body.path("kvs");
      listed += kvs.size();
      pages++;
      more = body.path("more").asBoolean(false) && !kvs.isEmpty();
      if (more) {
        String last = new String(Base64.getDecoder().decode(kvs.get(kvs.size() - 1).path("key").asText()), StandardCharsets.UTF_8);
        from = last + "\0";
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("the list did not end within " + timeout + " (" + listed + " listed)");
      }
    }
    return new ScaleResult.Listed(Duration.ofNanos(System.nanoTime() - start), pages, listed);
  }

  @Override
  public ScaleResult.Backup backup(String endpoint, Path file, Duration timeout) throws IOException, InterruptedException {
    if (etcdctl == null) {
      return null;
    }
    Bench.Ran ran = Bench.run("etcdctl snapshot save",
        List.of(etcdctl.toString(), "--endpoints=http://" + endpoint, "snapshot", "save", file.toString()), timeout);
    return new ScaleResult.Backup(ran.took(), Files.size(file), -1);
  }

  @Override
  public long liveHeap(HttpClient http, LocalCluster server) {
    return -1;
  }

  @Override
  public ScaleResult.Watched watchSnapshot(HttpClient http, String endpoint, Duration timeout) {
    return null;
  }

  private static HttpRequest post(String endpoint, String path, ObjectNode body) {
    return HttpRequest.newBuilder(URI.create("http://" + endpoint + path))
        .timeout(ScaleLoad.REQUEST_TIMEOUT)
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body.toString()))
        .build();
  }

  private static String b64(String text) {
    return B64.encodeToString(text.getBytes(StandardCharsets.UTF_8));
  }
}
