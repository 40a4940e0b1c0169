package io.setpoint.storage.raft;

import io.setpoint.api.tls.TlsFiles;
import io.setpoint.storage.engine.StoreEngine.Limits;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * What a member of a Raft cluster needs to start: who it is, where its data lives, and who its
 * peers are.
 *
 * @param nodeName this member's name, unique in the cluster and stable across restarts
 * @param dataDir where this member keeps its Raft log and snapshots; reused on restart (made
 *     absolute)
 * @param raftPort the port this member's Raft RPC listens on
 * @param peers every member of the cluster, this one included, by node name, as {@code host:port}
 *     (the address other members dial); this member binds its own entry's host. Only read when the
 *     data directory is new: afterwards membership comes from the replicated log
 * @param limits the history and watch buffer bounds of the store
 * @param tuning timeouts, snapshots and group commit
 * @param tls null for plaintext Raft traffic; otherwise this member's certificate and key, and the
 *     CA every peer's certificate must be signed by: peers then talk mutual TLS, each side checking
 *     the other's certificate (and the client side the peer's host, so a member's certificate must
 *     name the host of its peer address)
 * @param join this member joins a running cluster ({@link RaftBackend#isMember()}): started on a
 *     new data directory, it holds no membership and neither votes nor stands for election until
 *     a member adds it ({@link io.setpoint.storage.Replication#addMember}); {@code peers} then need
 *     only name this member. On a data directory that already holds a membership, the flag changes
 *     nothing.
 */
public record RaftConfig(
    String nodeName,
    Path dataDir,
    int raftPort,
    Map<String, String> peers,
    Limits limits,
    Tuning tuning,
    TlsFiles tls,
    boolean join) {

  public RaftConfig {
    Objects.requireNonNull(nodeName, "nodeName");
    Objects.requireNonNull(dataDir, "dataDir");
    Objects.requireNonNull(peers, "peers");
    Objects.requireNonNull(limits, "limits");
    Objects.requireNonNull(tuning, "tuning");
    if (nodeName.isBlank()) {
      throw new IllegalArgumentException("nodeName is blank");
    }
    if (raftPort < 1 || raftPort > 65_535) {
      throw new IllegalArgumentException("raftPort " + raftPort + " is not a port");
    }
    if (!peers.containsKey(nodeName)) {
      throw new IllegalArgumentException("peers " + peers.keySet() + " do not include this node " + nodeName);
    }
    peers.forEach(RaftConfig::checkAddress);
    // Absolute, because Ratis names a snapshot it sends a new member by its path relative to the
    // snapshot directory, and a relative data directory made that path climb out of it.
    dataDir = dataDir.toAbsolutePath().normalize();
    peers = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(peers));
    if (tls != null && !tls.mutual()) {
      throw new IllegalArgumentException(
          "Raft TLS is mutual: peers must check each other's certificates, so give the CA that signed them");
    }
  }

  /** A founding member (not {@linkplain #join() joining}) with plaintext Raft traffic. */
  public RaftConfig(
      String nodeName, Path dataDir, int raftPort, Map<String, String> peers, Limits limits, Tuning tuning) {
    this(nodeName, dataDir, raftPort, peers, limits, tuning, null, false);
  }

  /**
   * A member of the cluster {@code peers} with default limits and tuning. An empty {@code peers}
   * means a cluster of this node alone, at {@code 127.0.0.1:raftPort}.
   */
  public static RaftConfig of(String nodeName, Path dataDir, int raftPort, Map<String, String> peers) {
    Map<String, String> members = peers.isEmpty() ? Map.of(nodeName, "127.0.0.1:" + raftPort) : peers;
    return new RaftConfig(nodeName, dataDir, raftPort, members, Limits.DEFAULT, Tuning.DEFAULT);
  }

  /** This config with other store limits. */
  public RaftConfig withLimits(Limits other) {
    return new RaftConfig(nodeName, dataDir, raftPort, peers, other, tuning, tls, join);
  }

  /** This config with other tuning. */
  public RaftConfig withTuning(Tuning other) {
    return new RaftConfig(nodeName, dataDir, raftPort, peers, limits, other, tls, join);
  }

  /**
   * This config with Raft traffic over mutual TLS ({@code files} must name the {@linkplain
   * TlsFiles#trustedCa() CA} that signed every peer's certificate); null for plaintext. The files
   * are read when the member starts.
   */
  public RaftConfig withTls(TlsFiles files) {
    return new RaftConfig(nodeName, dataDir, raftPort, peers, limits, tuning, files, join);
  }

  /**
   * This config for a member that joins a running cluster instead of founding one: see {@link
   * #join()}.
   */
  public RaftConfig joining() {
    return new RaftConfig(nodeName, dataDir, raftPort, peers, limits, tuning, tls, true);
  }

  /** The host part of this node's own peer address, which its Raft RPC binds. */
  String bindHost() {
    String own = peers.get(nodeName);
    return own.substring(0, own.lastIndexOf(':'));
  }

  private static void checkAddress(String name, String address) {
    if (name.isBlank() || address == null || address.lastIndexOf(':') < 1) {
      throw new IllegalArgumentException("peer " + name + " has no host:port address: " + address);
    }
    if (!isPeerAddress(address)) {
      throw new IllegalArgumentException("peer " + name + " has no valid port: " + address);
    }
  }

  /** Whether {@code address} is a Raft address other members can dial: {@code host:port}, the port within 1..65535. */
  public static boolean isPeerAddress(String address) {
    int colon = address == null ? -1 : address.lastIndexOf(':');
    if (colon < 1 || address.substring(0, colon).isBlank()) {
      return false;
    }
    try {
      int port = Integer.parseInt(address.substring(colon + 1));
      return port >= 1 && port <= 65_535;
    } catch (NumberFormatException e) {
      return false;
    }
  }

  /**
   * Timing and batching of a Raft backend. {@link #DEFAULT} suits a LAN cluster on small, shared
   * machines; tests shorten the timeouts so elections take a fraction of a second.
   *
   * @param electionTimeoutMin a follower that hears nothing from a leader this long (plus a random
   *     part up to {@code electionTimeoutMax}) starts an election; the leader heartbeats well within
   *     it
   * @param electionTimeoutMax the upper bound of the randomised election timeout
   * @param requestTimeout how long one write or strong read may take, across retries and leader
   *     changes, before it fails with {@code UNAVAILABLE}
   * @param snapshotEvery how many Raft log entries are applied between automatic snapshots; the log
   *     up to a snapshot is then purged
   * @param logSegmentBytes the size at which a Raft log segment is closed; only closed segments are
   *     purged
   * @param leaderLease whether the leader answers strong reads from its lease instead of a heartbeat
   *     round (Ratis leaves it off unless told; it assumes bounded clock drift)
   * @param maxBatchOps the most operations group commit puts into one Raft log entry
   * @param maxBatchBytes the most serialized bytes group commit puts into one Raft log entry (a
   *     single larger operation still travels alone)
   * @param maxBatchesInFlight how many log entries a member may have submitted and not yet had
   *     answered; more writers than that queue and join the next entry
   */
  public record Tuning(
      Duration electionTimeoutMin,
      Duration electionTimeoutMax,
      Duration requestTimeout,
      long snapshotEvery,
      long logSegmentBytes,
      boolean leaderLease,
      int maxBatchOps,
      int maxBatchBytes,
      int maxBatchesInFlight) {

    /**
     * Elections after 1-2 s of silence, 10 s per request, a snapshot every 10,000 log entries, 32 MiB
     * segments, leader lease on, up to 1,024 operations or 1 MiB per entry, 1 entry in flight per
     * member (Ratis pipelines appends itself; a second entry in flight only made entries smaller and
     * cost more CPU per write).
     */
    public static final Tuning DEFAULT =
        new Tuning(
            Duration.ofSeconds(1),
            Duration.ofSeconds(2),
            Duration.ofSeconds(10),
            10_000,
            32L << 20,
            true,
            1_024,
            1 << 20,
            1);

    public Tuning {
      Objects.requireNonNull(electionTimeoutMin, "electionTimeoutMin");
      Objects.requireNonNull(electionTimeoutMax, "electionTimeoutMax");
      Objects.requireNonNull(requestTimeout, "requestTimeout");
      if (electionTimeoutMin.isNegative()
          || electionTimeoutMin.isZero()
          || electionTimeoutMax.compareTo(electionTimeoutMin) < 0) {
        throw new IllegalArgumentException(
            "need 0 < electionTimeoutMin <= electionTimeoutMax, got "
                + electionTimeoutMin
                + " and "
                + electionTimeoutMax);
      }
      if (requestTimeout.compareTo(electionTimeoutMax) <= 0) {
        throw new IllegalArgumentException(
            "requestTimeout " + requestTimeout + " must exceed electionTimeoutMax, or no request survives an election");
      }
      if (snapshotEvery < 1 || logSegmentBytes < 1024) {
        throw new IllegalArgumentException("snapshotEvery must be >= 1 and logSegmentBytes >= 1024");
      }
      if (maxBatchOps < 1 || maxBatchBytes < 1 || maxBatchesInFlight < 1) {
        throw new IllegalArgumentException("batch limits must be at least 1");
      }
    }

    /** This tuning with other election timeouts. */
    public Tuning withElectionTimeout(Duration min, Duration max) {
      return new Tuning(
          min, max, requestTimeout, snapshotEvery, logSegmentBytes, leaderLease, maxBatchOps,
          maxBatchBytes, maxBatchesInFlight);
    }

    /** This tuning with another request timeout. */
    public Tuning withRequestTimeout(Duration timeout) {
      return new Tuning(
          electionTimeoutMin, electionTimeoutMax, timeout, snapshotEvery, logSegmentBytes,
          leaderLease, maxBatchOps, maxBatchBytes, maxBatchesInFlight);
    }

    /** This tuning with another snapshot interval and log segment size. */
    public Tuning withSnapshots(long every, long segmentBytes) {
      return new Tuning(
          electionTimeoutMin, electionTimeoutMax, requestTimeout, every, segmentBytes, leaderLease,
          maxBatchOps, maxBatchBytes, maxBatchesInFlight);
    }

    /** This tuning with other group commit limits. */
    public Tuning withBatching(int ops, int bytes, int inFlight) {
      return new Tuning(
          electionTimeoutMin, electionTimeoutMax, requestTimeout, snapshotEvery, logSegmentBytes,
          leaderLease, ops, bytes, inFlight);
    }

    /** This tuning with the leader lease on or off. */
    public Tuning withLeaderLease(boolean enabled) {
      return new Tuning(
          electionTimeoutMin, electionTimeoutMax, requestTimeout, snapshotEvery, logSegmentBytes,
          enabled, maxBatchOps, maxBatchBytes, maxBatchesInFlight);
    }
  }
}
