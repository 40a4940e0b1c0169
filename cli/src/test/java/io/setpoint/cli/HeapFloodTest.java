package io.setpoint.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.Any;
import io.setpoint.api.Ids;
import io.setpoint.api.v1.Resource;
import io.setpoint.client.SetpointClient;
import io.setpoint.demo.DemoTypes;
import io.setpoint.demo.v2.Artist;
import io.setpoint.testkit.FreePorts;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Issue 15, defect 4: one writer updating one large resource over and over must not exhaust the
 * agent's heap. The agent runs as its own JVM with a 512 MiB heap and the default limits, with the
 * demo types and their controllers (which reconcile every update, so each one is stored twice: the
 * write and the controller's status); the flood writes 720 versions of a ~900 KB resource, about
 * 630 MB if every version were kept.
 */
class HeapFloodTest {
  private static final String JAVA_HOME = System.getProperty("java.home");
  private static final int UPDATES = 720;
  private static final int PAYLOAD_BYTES = 900 << 10;
  private static final long MAX_HEAP = 512L << 20;
  private static final Pattern USED = Pattern.compile("used (\\d+)K");
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  /** How the agent keeps its store. */
  enum Store {
    IN_MEMORY, DURABLE
  }

  @ParameterizedTest
  @EnumSource(Store.class)
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void floodOfLargeUpdatesLeavesTheAgentAliveAnsweringAndItsHeapBounded(Store store, @TempDir Path dir)
      throws Exception {
    int port = FreePorts.loopback();
    Process agent = startAgent(store, port, dir);
    try (SetpointClient client = SetpointClient.builder().address("127.0.0.1:" + port)
        .deadline(Duration.ofSeconds(20)).build()) {
      String filler = "x".repeat(PAYLOAD_BYTES);
      Resource last = null;
      for (int i = 0; i < UPDATES; i++) {
        last = client.write(artist("flood", i + filler));
      }

      assertThat(agent.isAlive()).as("the agent survived the flood; its log: %s", dir.resolve("agent.log")).isTrue();
      long used = usedHeapAfterFullGc(agent.pid());
      // The byte budgets are shares of the heap: what stays after a full collection is the live
      // resource, those budgets and the server's baseline, far below the 512 MiB max.
      assertThat(used).as("used heap after a full GC, in bytes; what holds it:%n%s", topOfHistogram(agent.pid()))
          .isLessThan(MAX_HEAP / 2);
      Resource read = client.readConsistent(last.getId());
      assertThat(read.getData().unpack(Artist.class).getDescription()).startsWith((UPDATES - 1) + "x");
      Resource small = client.write(artist("after-the-flood", "small"));
      // (Not its version: the demo controller writes its status meanwhile.)
      assertThat(client.readConsistent(small.getId()).getData().unpack(Artist.class).getDescription())
          .isEqualTo("small");
    } finally {
      agent.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
  }

  /** {@code setpoint agent} in a JVM of its own with {@code -Xmx512m}, once it answers /readyz. */
  private static Process startAgent(Store store, int port, Path dir) throws IOException {
    List<String> command = new ArrayList<>(List.of(Path.of(JAVA_HOME, "bin", "java").toString(), "-Xmx512m",
        "-cp", System.getProperty("java.class.path"), Main.class.getName(), "agent", "-port", Integer.toString(port)));
    if (store == Store.IN_MEMORY) {
      command.add("-dev");
    } else {
      command.addAll(List.of("-data-dir", dir.resolve("data").toString(),
          "-raft-port", Integer.toString(FreePorts.loopback()), "-demo-types", "-no-acls"));
    }
    Process agent = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(dir.resolve("agent.log").toFile()).start();
    HttpRequest ready = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/readyz"))
        .timeout(Duration.ofSeconds(2)).build();
    try {
      await().atMost(Duration.ofSeconds(60)).ignoreExceptions()
          .failFast("the agent exited", () -> !agent.isAlive())
          .until(() -> HTTP.send(ready, HttpResponse.BodyHandlers.discarding()).statusCode() == 200);
    } catch (RuntimeException e) {
      agent.destroyForcibly();
      throw e;
    }
    return agent;
  }

  private static Resource artist(String name, String description) {
    return Resource.newBuilder().setId(Ids.of(DemoTypes.ARTIST, name))
        .setData(Any.pack(Artist.newBuilder().setName(name).setDescription(description).build())).build();
  }

  /** The agent's used heap, in bytes, right after a full collection (through the JDK's jcmd). */
  private static long usedHeapAfterFullGc(long pid) throws IOException, InterruptedException {
    jcmd(pid, "GC.run");
    Matcher m = USED.matcher(jcmd(pid, "GC.heap_info"));
    assertThat(m.find()).as("jcmd GC.heap_info reports the used heap").isTrue();
    return Long.parseLong(m.group(1)) << 10;
  }

  /** The classes whose instances take the most heap, for a failure message. */
  private static String topOfHistogram(long pid) throws IOException, InterruptedException {
    return jcmd(pid, "GC.class_histogram").lines().limit(15).collect(Collectors.joining("\n"));
  }

  private static String jcmd(long pid, String command) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(Path.of(JAVA_HOME, "bin", "jcmd").toString(), Long.toString(pid), command)
        .redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).as("jcmd %s ended", command).isTrue();
    assertThat(p.exitValue()).as("jcmd %s: %s", command, out).isZero();
    return out;
  }
}
