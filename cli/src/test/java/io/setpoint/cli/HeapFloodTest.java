package io.setpoint.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Any;
import io.setpoint.api.Ids;
import io.setpoint.api.v1.Resource;
import io.setpoint.client.SetpointClient;
import io.setpoint.demo.DemoTypes;
import io.setpoint.demo.v2.Artist;
import io.setpoint.loadgen.AgentProcess;
import io.setpoint.loadgen.LocalCluster;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Issue 15, defect 4: one writer updating one large resource over and over must not exhaust the
 * agent's heap. The agent runs as its own JVM with a 512 MiB heap and the default limits; the
 * flood writes 720 versions of a ~900 KB resource (about 630 MB of history if it were all kept).
 */
class HeapFloodTest {
  private static final String JAVA_HOME = System.getProperty("java.home");
  private static final int UPDATES = 720;
  private static final int PAYLOAD_BYTES = 900 << 10;
  private static final long MAX_HEAP = 512L << 20;
  private static final Pattern USED = Pattern.compile("used (\\d+)K");

  @ParameterizedTest
  @EnumSource(AgentProcess.Mode.class)
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void floodOfLargeUpdatesLeavesTheAgentAliveAnsweringAndItsHeapBounded(AgentProcess.Mode mode) throws Exception {
    AgentProcess.Config config = new AgentProcess.Config(
        mode, 1, 0, false, List.of(), List.of("-Xmx512m"), Duration.ofSeconds(60));
    try (LocalCluster agent = AgentProcess.start(config);
        SetpointClient client = SetpointClient.builder().address(agent.endpoints().getFirst())
            .deadline(Duration.ofSeconds(20)).build()) {
      long pid = agent.pids().getFirst();
      String filler = "x".repeat(PAYLOAD_BYTES);
      Resource last = null;
      for (int i = 0; i < UPDATES; i++) {
        last = client.write(artist("flood", i + filler));
      }

      assertThat(agent.allAlive()).as("the agent survived the flood").isTrue();
      long used = usedHeapAfterFullGc(pid);
      // The default history budget is a fraction of the heap: what stays after a full collection
      // is the live resource, that budget and the server's baseline, far below the 512 MiB max.
      assertThat(used).as("used heap after a full GC, in bytes; what holds it:%n%s", topOfHistogram(pid))
          .isLessThan(MAX_HEAP / 2);
      Resource read = client.readConsistent(last.getId());
      assertThat(read.getVersion()).isEqualTo(last.getVersion());
      assertThat(read.getData().unpack(Artist.class).getDescription()).startsWith((UPDATES - 1) + "x");
      Resource small = client.write(artist("after-the-flood", "small"));
      assertThat(client.readConsistent(small.getId()).getVersion()).isEqualTo(small.getVersion());
    }
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
