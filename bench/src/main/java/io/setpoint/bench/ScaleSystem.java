package io.setpoint.bench;

import io.setpoint.loadgen.LocalCluster;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.nio.file.Path;
import java.time.Duration;

/**
 * What differs between the systems {@code bench scale} measures: how a fresh server starts, how a
 * resource is written, listed and backed up, and what only Setpoint has (a live heap to read, a
 * watch snapshot). Everything else, {@link ScaleRun} does the same way for both. The endpoint is
 * the server's {@code host:port}, where both serve HTTP.
 */
interface ScaleSystem {
  /** Resources per page of the list. */
  int PAGE = 1000;

  /** {@code setpoint (raft)}, {@code etcd 3.4.23}: how the output names the system. */
  String label();

  /** One server on a new, empty data directory, ready. */
  LocalCluster start(Duration timeout) throws InterruptedException;

  /**
   * The server's data directory: member n1's, where both {@code AgentProcess} ({@code -data-dir})
   * and {@code EtcdProcess} ({@code --data-dir}) put it; its log is beside it, not in it.
   */
  default Path dataDir(LocalCluster server) {
    return server.dir().resolve("n1");
  }

  /** The write of resource {@code i}: {@link ScaleLoad#document} under {@link ScaleLoad#name}. */
  HttpRequest write(String endpoint, int i, int valueBytes);

  /** Lists every resource written, {@link #PAGE} at a time, all pages at the revision of the first. */
  ScaleResult.Listed list(HttpClient http, String endpoint, Duration timeout) throws IOException, InterruptedException;

  /** Backs the server up into {@code file} with the system's own CLI; null if that cannot be measured here. */
  ScaleResult.Backup backup(String endpoint, Path file, Duration timeout) throws IOException, InterruptedException;

  /** The heap the server holds live, after a full collection; -1 for a server that has no such heap. */
  long liveHeap(HttpClient http, LocalCluster server) throws IOException, InterruptedException;

  /** A watch from scratch until its initial snapshot ended; null for a system whose watch has none. */
  ScaleResult.Watched watchSnapshot(HttpClient http, String endpoint, Duration timeout)
      throws IOException, InterruptedException;
}
