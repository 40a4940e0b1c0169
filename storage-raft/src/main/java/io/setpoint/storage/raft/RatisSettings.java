package io.setpoint.storage.raft;

import io.setpoint.api.tls.TlsFiles;
import java.net.ConnectException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.RaftConfigKeys;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.grpc.GrpcTlsConfig;
import org.apache.ratis.grpc.GrpcUtil;
import org.apache.ratis.grpc.server.GrpcServices;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.exceptions.LeaderNotReadyException;
import org.apache.ratis.protocol.exceptions.NotLeaderException;
import org.apache.ratis.protocol.exceptions.ServerNotReadyException;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.retry.RetryPolicy;
import org.apache.ratis.rpc.SupportedRpcType;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.util.SizeInBytes;
import org.apache.ratis.util.TimeDuration;

/** Translates a {@link RaftConfig} into Ratis's configuration, setting every default we rely on. */
final class RatisSettings {
  /** Snapshot files a member keeps: the newest, and the one before in case it is damaged. */
  static final int SNAPSHOTS_KEPT = 2;

  /** One group per cluster; its id only has to be the same on every member. */
  static final RaftGroupId GROUP_ID =
      RaftGroupId.valueOf(UUID.nameUUIDFromBytes("setpoint-storage".getBytes(StandardCharsets.UTF_8)));

  private static final Duration RETRY_SLEEP = Duration.ofMillis(50);
  /** The first election timeout of a member alone in its cluster. */
  private static final Duration ALONE_FIRST_ELECTION_MIN = Duration.ofMillis(10);
  private static final Duration ALONE_FIRST_ELECTION_MAX = Duration.ofMillis(20);
  private static final Duration STAGING_STALL = Duration.ofSeconds(60);

  private RatisSettings() {}

  /**
   * The members a new data directory starts with: none for a member that {@linkplain
   * RaftConfig#join() joins}, so that it waits, without voting, to be added by the cluster.
   */
  static RaftGroup startingGroup(RaftConfig config) {
    return config.join() ? RaftGroup.valueOf(GROUP_ID) : group(config);
  }

  /** The members {@code config} names. */
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

  /** Ratis's properties for {@code config}, with the customizations in {@code off} left at Ratis's defaults. */
  static RaftProperties properties(RaftConfig config, Set<RaftCustomization> off) {
    RaftConfig.Tuning t = config.tuning();
    RaftProperties p = new RaftProperties();
    RaftServerConfigKeys.setStorageDir(p, List.of(config.dataDir().toFile()));
    GrpcConfigKeys.Server.setHost(p, config.bindHost());
    GrpcConfigKeys.Server.setPort(p, config.raftPort());
    // gRPC, with a leader that tells its followers of each commit at once (see CommitPropagation).
    RaftConfigKeys.Rpc.setType(
        p, off.contains(RaftCustomization.COMMIT_PROPAGATION) ? SupportedRpcType.GRPC : new CommitPropagation.Rpc());

    RaftServerConfigKeys.Rpc.setTimeoutMin(p, millis(t.electionTimeoutMin()));
    RaftServerConfigKeys.Rpc.setTimeoutMax(p, millis(t.electionTimeoutMax()));
    // Alone in its cluster, a member has nobody to wait for or to compete with: it elects itself
    // at once instead of after a timeout of a second or more, most of a single node's start.
    boolean alone = !config.join() && new DataDirectory(config).members() == 1;
    RaftServerConfigKeys.Rpc.setFirstElectionTimeoutMin(p,
        millis(alone ? ALONE_FIRST_ELECTION_MIN : t.electionTimeoutMin()));
    RaftServerConfigKeys.Rpc.setFirstElectionTimeoutMax(p,
        millis(alone ? ALONE_FIRST_ELECTION_MAX : t.electionTimeoutMax()));

    // Strong reads are ReadIndex reads, on followers too. Ratis's default is to read the leader's
    // state machine without any check, and the lease is off unless set.
    RaftServerConfigKeys.Read.setOption(p, RaftServerConfigKeys.Read.Option.LINEARIZABLE);
    RaftServerConfigKeys.Read.setLeaderLeaseEnabled(p, t.leaderLease());
    RaftServerConfigKeys.Read.setTimeout(p, millis(t.requestTimeout()));

    // Snapshot every so many entries, keep two, and drop the log they cover.
    RaftServerConfigKeys.Snapshot.setAutoTriggerEnabled(p, true);
    RaftServerConfigKeys.Snapshot.setAutoTriggerThreshold(p, t.snapshotEvery());
    RaftServerConfigKeys.Snapshot.setRetentionFileNum(p, SNAPSHOTS_KEPT);
    RaftServerConfigKeys.Log.setPurgeUptoSnapshotIndex(p, true);
    RaftServerConfigKeys.Log.setPurgeGap(p, (int) Math.min(1024, t.snapshotEvery()));
    RaftServerConfigKeys.Log.setSegmentSizeMax(p, SizeInBytes.valueOf(t.logSegmentBytes()));
    // Ratis otherwise appends an entry recording the commit index after every commit: a second
    // entry, fsync and replication round per batch, only so that a restarted member can apply its
    // log before it hears from a leader. It hears from one within an election timeout anyway.
    RaftServerConfigKeys.Log.setLogMetadataEnabled(p, off.contains(RaftCustomization.NO_METADATA_ENTRIES));
    // How long the leader pauses between attempts to reach a member it cannot reach. Ratis's default
    // backs off to 5 s after 30 failures, so a member restarted after half a minute away waited up
    // to 5 s to be heard from, and its clients with it. One election timeout is as long as that
    // member would wait for a heartbeat anyway.
    long pauseMs = t.electionTimeoutMin().toMillis();
    RaftServerConfigKeys.Log.Appender.setRetryPolicy(
        p, "1ms,10, " + Math.max(1, pauseMs / 5) + "ms,20, " + pauseMs + "ms," + Integer.MAX_VALUE);
    // A batch is one entry: the appender must be able to carry the largest one.
    RaftServerConfigKeys.Log.Appender.setBufferByteLimit(
        p, SizeInBytes.valueOf(Math.max(4L << 20, 2L * t.maxBatchBytes())));

    // Ratis sizes its memory by fixed defaults, whatever the heap: up to 200 MiB of log entries
    // cached for six closed segments, and 64 MiB each of queued log writes and pending requests.
    // With large resources that filled a 512 MiB heap. Each gets a share of the heap instead; the
    // open segment stays cached besides, and applied closed segments are read from disk again.
    SizeInBytes share = SizeInBytes.valueOf(heapShare(t));
    RaftServerConfigKeys.Log.setSegmentCacheNumMax(p, 2);
    RaftServerConfigKeys.Log.setSegmentCacheSizeMax(p, share);
    RaftServerConfigKeys.Log.setQueueByteLimit(p, share);
    RaftServerConfigKeys.Write.setByteLimit(p, share);

    // A member being added is caught up before it counts; the change fails only when that stalls
    // for this long (a large snapshot on a slow disk), not when it merely takes long.
    RaftServerConfigKeys.setStagingTimeout(p, millis(STAGING_STALL));

    RaftClientConfigKeys.Rpc.setRequestTimeout(p, millis(attemptTimeout(t)));
    return p;
  }

  /**
   * The heap one kind of Raft data held in memory may take (the log cache, queued log writes,
   * pending requests, writes waiting for a batch): a sixteenth of the maximum heap (32 MiB of
   * 512 MiB), and at least room for two of the largest batches and 8 MiB.
   */
  static long heapShare(RaftConfig.Tuning t) {
    return Math.max(Math.max(8L << 20, 2L * t.maxBatchBytes()), Runtime.getRuntime().maxMemory() / 16);
  }

  /**
   * The Ratis parameters (objects, not properties): appends taken on the I/O thread ({@link
   * InlineAppends}), the {@code forwards} stream served next to Raft's own, and, with {@link
   * RaftConfig#tls()}, the TLS of the gRPC transport, for this member's server (which then
   * requires a peer certificate) and for its clients of the other members, which present this
   * member's certificate.
   *
   * @throws IllegalArgumentException naming a TLS file that cannot be used
   */
  static Parameters parameters(RaftConfig config, ForwardService forwards, Set<RaftCustomization> off) {
    Parameters parameters = new Parameters();
    InlineAppends inline = off.contains(RaftCustomization.INLINE_APPENDS) ? null : new InlineAppends();
    GrpcConfigKeys.Server.setServicesCustomizer(parameters, (builder, types) -> {
      if (!types.contains(GrpcServices.Type.SERVER)) {
        return builder;
      }
      return (inline == null ? builder : inline.customize(builder, types)).addService(forwards.definition());
    });
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
   * How this member reaches the leader with its forwarded batches: the same message size limit,
   * flow control window and TLS as Raft's own transport.
   */
  static ForwardClient.Transport toLeader(RaftProperties properties, Parameters parameters) {
    GrpcTlsConfig tls = GrpcConfigKeys.TLS.conf(parameters);
    return new ForwardClient.Transport(
        tls == null ? null : GrpcUtil.buildSslContextForClient(tls),
        GrpcConfigKeys.messageSizeMax(properties, message -> {}).getSizeInt(),
        GrpcConfigKeys.flowControlWindow(properties, message -> {}).getSizeInt());
  }

  /**
   * Ratis clients retry forever unless told otherwise; retry for about the request timeout, with a
   * short sleep so a leader change is found quickly.
   */
  static RetryPolicy retryPolicy(RaftConfig.Tuning t) {
    int attempts = (int) Math.max(3, t.requestTimeout().toMillis() / RETRY_SLEEP.toMillis());
    return RetryPolicies.retryUpToMaximumCountWithFixedSleep(attempts, millis(RETRY_SLEEP));
  }

  /**
   * For requests whose repeat Raft's retry cache would not catch, such as a membership change
   * sent by a new client: tried again only when the member asked turned the request away untouched
   * (it does not lead, it is not ready yet, or no connection to it could be made). Any other failure
   * may come after the leader committed the request, so it is reported instead. (Ratis's blocking
   * client reports a member that does not lead or is not ready without a cause.)
   */
  static RetryPolicy retryWhileTurnedAway(RaftConfig.Tuning t) {
    RetryPolicy whileTurnedAway = retryPolicy(t);
    return event -> event.getCause() == null || turnedAway(event.getCause())
        ? whileTurnedAway.handleAttemptFailure(event)
        : RetryPolicy.NO_RETRY_ACTION;
  }

  private static boolean turnedAway(Throwable failure) {
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      if (cause instanceof NotLeaderException
          || cause instanceof LeaderNotReadyException
          || cause instanceof ServerNotReadyException
          || cause instanceof ConnectException) {
        return true;
      }
    }
    return false;
  }

  /** One attempt may take a few election timeouts (the leader may be changing), never the whole budget. */
  private static Duration attemptTimeout(RaftConfig.Tuning t) {
    Duration threeElections = t.electionTimeoutMax().multipliedBy(3);
    return threeElections.compareTo(t.requestTimeout()) < 0 ? threeElections : t.requestTimeout();
  }

  private static TimeDuration millis(Duration d) {
    return TimeDuration.valueOf(d.toMillis(), TimeUnit.MILLISECONDS);
  }
}
