package io.setpoint.bench;

import io.setpoint.loadgen.LocalCluster;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.Locale;

/**
 * One system at one size in {@code bench scale}, the same steps for both: start a server on an
 * empty data directory and read its memory and disk; write the resources; read memory and disk
 * again; back it up; list everything; watch from scratch (Setpoint); stop it with SIGTERM, start
 * it again on its data and read its memory once it is ready. Says what it did as it goes.
 */
final class ScaleRun {
  private final ScaleSystem system;
  private final int inFlight;
  private final int valueBytes;
  private final Duration timeout;
  private final PrintWriter out;

  ScaleRun(ScaleSystem system, int inFlight, int valueBytes, Duration timeout, PrintWriter out) {
    this.system = system;
    this.inFlight = inFlight;
    this.valueBytes = valueBytes;
    this.timeout = timeout;
    this.out = out;
  }

  /** Measures {@code count} resources on a fresh server, which is stopped and deleted afterwards. */
  ScaleResult measure(int count) throws IOException, InterruptedException {
    say("%s, %s resources: starting on an empty data directory", system.label(), ScaleSize.label(count));
    // The server closes first: a watch left stalled then ends, and closing the client does not wait on it.
    long starting = System.nanoTime();
    try (HttpClient http = FloodHttp.client(); LocalCluster server = system.start(timeout)) {
      Duration start = Duration.ofNanos(System.nanoTime() - starting);
      String endpoint = server.endpoints().get(0);
      long rssEmpty = OsProbes.rss(server.pids().get(0));
      long heapEmpty = system.liveHeap(http, server);
      long dirEmpty = OsProbes.diskUsage(system.dataDir(server));

      say("  ready in %s", Bench.seconds(start));
      Duration load = ScaleLoad.run(http, count, inFlight, i -> system.write(endpoint, i, valueBytes), timeout);
      say("  wrote %,d in %s (%,.0f writes/s)", count, Bench.seconds(load), count / seconds(load));
      long rssLoaded = OsProbes.rss(server.pids().get(0));
      long heapLoaded = system.liveHeap(http, server);
      long dirLoaded = OsProbes.diskUsage(system.dataDir(server));

      ScaleResult.Backup backup = system.backup(endpoint, server.dir().resolve("backup.snap"), timeout);
      if (backup != null) {
        say("  backup: %s, %,d bytes", Bench.seconds(backup.took()), backup.bytes());
      }
      ScaleResult.Listed listed = system.list(http, endpoint, timeout);
      say("  listed %,d in %d pages in %s", listed.resources(), listed.pages(), Bench.seconds(listed.took()));
      ScaleResult.Watched watched = system.watchSnapshot(http, endpoint, timeout);
      if (watched != null) {
        say("  watch snapshot: %,d events in %s", watched.events(), Bench.seconds(watched.took()));
      }

      long stopping = System.nanoTime();
      if (!server.terminate(0, timeout)) {
        say("  it did not exit within %s of SIGTERM and was killed", timeout);
      }
      Duration stop = Duration.ofNanos(System.nanoTime() - stopping);
      long launched = System.nanoTime();
      server.restart(0, timeout);
      Duration restart = Duration.ofNanos(System.nanoTime() - launched);
      long rssRestarted = OsProbes.rss(server.pids().get(0));
      long heapRestarted = system.liveHeap(http, server);
      say("  stopped in %s, ready again in %s", Bench.seconds(stop), Bench.seconds(restart));

      return new ScaleResult(system.label(), count, start, load,
          new ScaleResult.Memory(rssEmpty, rssLoaded, rssRestarted),
          heapEmpty < 0 ? null : new ScaleResult.Memory(heapEmpty, heapLoaded, heapRestarted),
          new ScaleResult.Disk(dirEmpty, dirLoaded), backup, stop, restart, listed, watched);
    }
  }

  private void say(String format, Object... args) {
    out.printf(Locale.ROOT, format + "%n", args);
    out.flush();
  }

  private static double seconds(Duration d) {
    return d.toNanos() / 1e9;
  }
}
