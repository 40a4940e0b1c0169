package io.setpoint.bench;

import java.time.Duration;

/**
 * What {@code bench scale} measured of one system at one size, from a fresh data directory:
 * {@code resources} written, then read back, backed up and restarted.
 *
 * @param start from launching the server on its empty data directory until it answered ready
 * @param load from the first write sent to the last answered
 * @param rss the server's resident memory ({@code VmRSS}): started empty, after the load, after the restart
 * @param liveHeap the agent's heap after a full collection at the same three moments; null for etcd
 * @param dataDir bytes on disk of the data directory, empty and after the load
 * @param backup the backup a user takes with the system's own CLI; null when it was not measured
 * @param stop from SIGTERM until the server exited
 * @param restart from launching it again on its data until it answered ready
 * @param watch the initial snapshot of a watch from scratch; null for etcd
 */
record ScaleResult(String system, int resources, Duration start, Duration load, Memory rss, Memory liveHeap, Disk dataDir,
    Backup backup, Duration stop, Duration restart, Listed list, Watched watch) {

  /** Bytes held at three moments. */
  record Memory(long empty, long loaded, long restarted) {}

  /** Bytes on disk, empty and loaded. */
  record Disk(long empty, long loaded) {}

  /**
   * A backup file saved by the system's CLI, timed from launching the CLI until it exited.
   *
   * @param resources the resources the file holds by the CLI's own count; -1 when the CLI gives none (etcdctl)
   */
  record Backup(Duration took, long bytes, long resources) {}

  /** Every resource listed in pages of {@link ScaleSystem#PAGE}: how long, how many pages, how many resources. */
  record Listed(Duration took, int pages, long resources) {}

  /** A watch from scratch: from the request until its snapshot ended, and the events in that snapshot. */
  record Watched(Duration took, long events) {}
}
