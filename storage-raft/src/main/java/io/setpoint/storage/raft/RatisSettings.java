package io.setpoint.storage.raft;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.client.RaftClientConfigKeys;
import io.setpoint.api.tls.TlsFiles;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcTlsConfig;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.retry.RetryPolicy;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.util.SizeInBytes;
import org.apache.ratis.util.TimeDuration;

/** Translates a {@link RaftConfig} into Ratis's configuration, setting every default we rely on. */
final class RatisSettings {
  /** One group per cluster; its id only has to be the same on every member. */
  static final RaftGroupId GROUP_ID =
      RaftGroupId.valueOf(UUID.nameUUIDFromBytes("setpoint-storage".getBytes(StandardCharsets.UTF_8)));

  private static final Duration RETRY_SLEEP = Duration.ofMillis(50);

  private RatisSettings() {}

  static RaftGroup group(RaftConfig config) {
    List<RaftPeer> peers =
        config.peers().entrySet().stream()
            .map(p -> RaftPeer.newBuilder().setId(p.getKey()).setAddress(p.getValue()).build())
            .toList();
    return RaftGroup.valueOf(GROUP_ID, peers);
  }

  static RaftPeerId peerId(String nodeName) {
    return RaftPeerId.valueOf(nodeName);
  }

  static RaftProperties properties(RaftConfig config) {
    RaftTuning t = config.tuning();
    RaftProperties p = new RaftProperties();
    RaftServerConfigKeys.setStorageDir(p, List.of(config.dataDir().toFile()));
    GrpcConfigKeys.Server.setHost(p, config.bindHost());
    GrpcConfigKeys.Server.setPort(p, config.raftPort());

    RaftServerConfigKeys.Rpc.setTimeoutMin(p, millis(t.electionTimeoutMin()));
    RaftServerConfigKeys.Rpc.setTimeoutMax(p, millis(t.electionTimeoutMax()));
    RaftServerConfigKeys.Rpc.setFirstElectionTimeoutMin(p, millis(t.electionTimeoutMin()));
    RaftServerConfigKeys.Rpc.setFirstElectionTimeoutMax(p, millis(t.electionTimeoutMax()));

    // Strong reads are ReadIndex reads, on followers too. Ratis's default is to read the leader's
    // state machine without any check, and the lease is off unless set.
    RaftServerConfigKeys.Read.setOption(p, RaftServerConfigKeys.Read.Option.LINEARIZABLE);
    RaftServerConfigKeys.Read.setLeaderLeaseEnabled(p, t.leaderLease());
    RaftServerConfigKeys.Read.setTimeout(p, millis(t.requestTimeout()));

    // Snapshot every so many entries, keep two, and drop the log they cover.
    RaftServerConfigKeys.Snapshot.setAutoTriggerEnabled(p, true);
    RaftServerConfigKeys.Snapshot.setAutoTriggerThreshold(p, t.snapshotEvery());
    RaftServerConfigKeys.Snapshot.setRetentionFileNum(p, 2);
    RaftServerConfigKeys.Log.setPurgeUptoSnapshotIndex(p, true);
    RaftServerConfigKeys.Log.setPurgeGap(p, (int) Math.min(1024, t.snapshotEvery()));
    RaftServerConfigKeys.Log.setSegmentSizeMax(p, SizeInBytes.valueOf(t.logSegmentBytes()));
    // A batch is one entry: the appender must be able to carry the largest one.
    RaftServerConfigKeys.Log.Appender.setBufferByteLimit(
        p, SizeInBytes.valueOf(Math.max(4L << 20, 2L * t.maxBatchBytes())));

    RaftClientConfigKeys.Rpc.setRequestTimeout(p, millis(attemptTimeout(t)));
    return p;
  }

  /**
   * The Ratis parameters (objects, not properties): with {@link RaftConfig#tls()}, the TLS of the
   * gRPC transport, for this member's server (which then requires a peer certificate) and for its
   * clients of the other members, which present this member's certificate.
   *
   * @throws IllegalArgumentException naming a TLS file that cannot be used
   */
  static Parameters parameters(RaftConfig config) {
    Parameters parameters = new Parameters();
    if (config.tls() != null) {
      TlsFiles.Loaded tls = config.tls().load();
      GrpcTlsConfig conf = new GrpcTlsConfig(
          tls.keyManagerFactory().getKeyManagers()[0], tls.trustManagerFactory().getTrustManagers()[0], true);
      // The default for the server, admin and client sides alike.
      GrpcConfigKeys.TLS.setConf(parameters, conf);
    }
    return parameters;
  }

  /**
   * Ratis clients retry forever unless told otherwise; retry for about the request timeout, with a
   * short sleep so a leader change is found quickly.
   */
  static RetryPolicy retryPolicy(RaftTuning t) {
    int attempts = (int) Math.max(3, t.requestTimeout().toMillis() / RETRY_SLEEP.toMillis());
    return RetryPolicies.retryUpToMaximumCountWithFixedSleep(attempts, millis(RETRY_SLEEP));
  }

  /** One attempt may take a few election timeouts (the leader may be changing), never the whole budget. */
  private static Duration attemptTimeout(RaftTuning t) {
    Duration threeElections = t.electionTimeoutMax().multipliedBy(3);
    return threeElections.compareTo(t.requestTimeout()) < 0 ? threeElections : t.requestTimeout();
  }

  private static TimeDuration millis(Duration d) {
    return TimeDuration.valueOf(d.toMillis(), TimeUnit.MILLISECONDS);
  }
}
