package io.setpoint.cli;

import io.setpoint.server.Agent;
import io.setpoint.storage.engine.StoreEngine.Limits;
import io.setpoint.storage.raft.RaftConfig;
import java.time.Duration;
import picocli.CommandLine.Option;

/**
 * {@code setpoint agent}'s bounds: connections, watches, request rates, history and snapshots; and
 * how often the UI's charts sample.
 */
final class AgentLimitOptions {
  @Option(names = "-max-connections", paramLabel = "N",
      description = "The most client connections open at once; new ones past it are reset on arrival (default: the "
          + "file-descriptor limit less a fifth, at least 256, kept for the store and the JVM).")
  private Integer maxConnections;

  @Option(names = "-max-connections-per-client", paramLabel = "N",
      description = "The most connections open at once from one client address (default: 512, or -max-connections "
          + "when lower). Raise it for clients behind one proxy or NAT.")
  private Integer maxConnectionsPerClient;

  @Option(names = "-max-watches-per-client", paramLabel = "N",
      description = "At most N watches open at once from each client (its token, or its address without one); "
          + "more are refused with RESOURCE_EXHAUSTED / HTTP 429 (default: no limit).")
  private Integer maxWatchesPerClient;

  @Option(names = "-metrics-acl",
      description = "With ACLs on: /metrics needs a token with operator:read (Authorization: Bearer).")
  private boolean metricsAcl;

  @Option(names = "-snapshot-every", paramLabel = "N",
      description = "With -data-dir: take a snapshot of the store every N Raft log entries and purge the log behind"
          + " it (default: 10000; one entry carries a batch of writes).")
  private Integer snapshotEvery;

  @Option(names = "-client-rate-limit", paramLabel = "N",
      description = "At most N API requests per second from each client (its token, or its address without one); "
          + "more are refused with RESOURCE_EXHAUSTED / HTTP 429 and Retry-After (default: no limit).")
  private Integer clientRateLimit;

  @Option(names = "-client-rate-burst", paramLabel = "N",
      description = "With -client-rate-limit: requests a client may make at once after a quiet spell (default: "
          + "the rate).")
  private Integer clientRateBurst;

  @Option(names = "-history-mib", paramLabel = "MIB",
      description = "Keep at most MIB mebibytes of past resource versions for watch resumes and page tokens "
          + "(default: an eighth of the JVM's maximum heap); the oldest are compacted first.")
  private Integer historyMib;

  @Option(names = "-meter-sample-interval", paramLabel = "TIME", converter = DurationConverter.class,
      description = "How often the web UI's charts sample the agent's meters (default: 5s); the last 180 samples "
          + "are kept, 15 minutes at the default.")
  private Duration meterSampleInterval;

  /** What makes these flags unusable (with {@code dev}, or with ACLs on or off); null when nothing does. */
  String problem(boolean dev, boolean aclsOn) {
    String low = firstBelowOne("-max-connections", maxConnections, "-max-connections-per-client",
        maxConnectionsPerClient, "-history-mib", historyMib, "-snapshot-every", snapshotEvery,
        "-max-watches-per-client", maxWatchesPerClient, "-client-rate-limit", clientRateLimit,
        "-client-rate-burst", clientRateBurst);
    if (low != null) {
      return low;
    }
    if (meterSampleInterval != null && (meterSampleInterval.isNegative() || meterSampleInterval.isZero())) {
      return "-meter-sample-interval must be positive, was " + meterSampleInterval;
    }
    if (metricsAcl && !aclsOn) {
      return "-metrics-acl needs ACLs on (the default with -data-dir, or -dev -acls)";
    }
    if (dev && snapshotEvery != null) {
      return "-snapshot-every is for a durable store (-data-dir); -dev keeps no snapshots";
    }
    if (clientRateBurst != null && clientRateLimit == null) {
      return "-client-rate-burst goes with -client-rate-limit N";
    }
    return null;
  }

  private static String firstBelowOne(Object... optionThenValue) {
    for (int i = 0; i < optionThenValue.length; i += 2) {
      if (optionThenValue[i + 1] instanceof Integer value && value < 1) {
        return optionThenValue[i] + " must be at least 1, was " + value;
      }
    }
    return null;
  }

  /** The store's bounds: the defaults, with -history-mib if given. */
  Limits store() {
    return historyMib == null ? Limits.DEFAULT : Limits.DEFAULT.withHistoryBytes((long) historyMib << 20);
  }

  /** {@code config} with the store's bounds and -snapshot-every. */
  RaftConfig applyTo(RaftConfig config) {
    RaftConfig bounded = config.withLimits(store());
    return snapshotEvery == null ? bounded
        : bounded.withTuning(bounded.tuning().withSnapshots(snapshotEvery, bounded.tuning().logSegmentBytes()));
  }

  /** Gives {@code builder} the connection, watch, rate and /metrics settings that were set. */
  void applyTo(Agent.Builder builder) {
    if (maxConnections != null) {
      builder.maxConnections(maxConnections);
    }
    if (maxConnectionsPerClient != null) {
      builder.maxConnectionsPerClient(maxConnectionsPerClient);
    }
    builder.metricsAcl(metricsAcl);
    if (meterSampleInterval != null) {
      builder.meterSampleInterval(meterSampleInterval);
    }
    if (maxWatchesPerClient != null) {
      builder.maxWatchesPerClient(maxWatchesPerClient);
    }
    if (clientRateLimit != null) {
      builder.clientRateLimit(clientRateLimit, clientRateBurst != null ? clientRateBurst : clientRateLimit);
    }
  }
}
