package io.setpoint.bench;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Token A's flood for {@link FloodBench}, in a process of its own, so that on a small machine it
 * can be given CPUs of its own like a flood from another host: {@code -clients} concurrent {@code
 * GET -url} with {@code -token}, each sent again as soon as it is answered ({@link
 * FloodHttp.Flood}). One process serves the warm-up and the measured flood, so the measured one is
 * sent by a compiled client. Driven by lines on stdin, answered on stdout:
 * <ul>
 *   <li>{@code start}: starts flooding and answers {@code started};
 *   <li>{@code stop}: stops, waits for the requests in flight, and answers with {@link
 *       FloodHttp.Flooded#line()} (the counts and how long it sent);
 * </ul>
 * and exits when stdin ends.
 */
@Command(name = "flood-client", hidden = true, description = "Token A's flood of 'bench flood', in a process of its own.")
final class FloodClientCommand implements Callable<Integer> {
  @Option(names = "-url", required = true, paramLabel = "URL", description = "What to GET.")
  private URI url;

  // From the environment by default, so the secret does not show in the process list.
  @Option(names = "-token", paramLabel = "TOKEN", defaultValue = "${env:SETPOINT_TOKEN}",
      description = "The bearer token (default: $SETPOINT_TOKEN).")
  private String token;

  @Option(names = "-clients", defaultValue = "64", paramLabel = "N", description = "Concurrent requests.")
  private int clients;

  @Override
  public Integer call() throws Exception {
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    try (HttpClient http = FloodHttp.client()) {
      HttpRequest request = FloodHttp.get(url, token);
      FloodHttp.Flood flood = null;
      String line;
      while ((line = in.readLine()) != null) {
        switch (line.trim()) {
          case "start" -> {
            flood = flood != null ? flood : new FloodHttp.Flood(http, request, clients);
            out.println("started");
          }
          case "stop" -> {
            out.println(flood != null ? flood.stop().line() : "unknown stop: not flooding");
            flood = null;
          }
          default -> out.println("unknown " + line);
        }
      }
      if (flood != null) {
        flood.stop();
      }
    }
    return 0;
  }
}
