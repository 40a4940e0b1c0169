package io.setpoint.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What an agent's {@code /metrics} says about its heap and open watches at one moment: the JVM's
 * {@code jvm_memory_used_bytes} and {@code jvm_memory_max_bytes} summed over the heap's pools,
 * and {@code setpoint_watches_open} (every watch being streamed, the agent's own controllers'
 * included).
 */
record AgentGauges(long heapUsed, long heapMax, int watchesOpen) {
  private static final Pattern SAMPLE = Pattern.compile(
      "^(jvm_memory_used_bytes|jvm_memory_max_bytes)\\{area=\"heap\",[^}]*} (\\S+)$|^setpoint_watches_open(?:\\{[^}]*})? (\\S+)$",
      Pattern.MULTILINE);

  /** Reads {@code /metrics} at {@code agent} ("host:port"), with {@code secret} for an agent that needs one. */
  static AgentGauges read(HttpClient http, String agent, String secret) throws IOException, InterruptedException {
    HttpRequest request = FloodHttp.get(URI.create("http://" + agent + "/metrics"), secret);
    HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) {
      throw new IOException("GET /metrics answered " + response.statusCode());
    }
    return parse(response.body());
  }

  /**
   * Reads {@code /metrics} at {@code agent} right after a full collection of the agent's process
   * {@code pid} (through {@code jcmd PID GC.run}), so the heap read is what it holds live rather
   * than where its collector happens to be.
   */
  static AgentGauges afterFullGc(HttpClient http, String agent, String secret, long pid)
      throws IOException, InterruptedException {
    Process jcmd = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
        Long.toString(pid), "GC.run").redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
    if (!jcmd.waitFor(60, TimeUnit.SECONDS) || jcmd.exitValue() != 0) {
      jcmd.destroyForcibly();
      throw new IllegalStateException("jcmd " + pid + " GC.run failed");
    }
    return read(http, agent, secret);
  }

  static AgentGauges parse(String metrics) {
    long used = 0;
    long max = 0;
    int watches = -1;
    Matcher m = SAMPLE.matcher(metrics);
    while (m.find()) {
      if (m.group(1) == null) {
        watches = (int) Double.parseDouble(m.group(3));
      } else if (m.group(1).equals("jvm_memory_used_bytes")) {
        used += (long) Double.parseDouble(m.group(2));
      } else {
        // G1's young pools have no maximum of their own (-1): the old generation's is the heap's.
        max += Math.max(0, (long) Double.parseDouble(m.group(2)));
      }
    }
    if (watches < 0 || used == 0) {
      throw new IllegalStateException("/metrics has no jvm_memory_used_bytes{area=\"heap\"} or setpoint_watches_open");
    }
    return new AgentGauges(used, max, watches);
  }
}
