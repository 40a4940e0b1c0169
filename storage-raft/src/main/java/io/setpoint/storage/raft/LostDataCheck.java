package io.setpoint.storage.raft;

import java.io.IOException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.proto.RaftProtos.CommitInfoProto;
import org.apache.ratis.protocol.GroupInfoReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.util.TimeDuration;

/**
 * Refuses to start a founding member ({@code -cluster}) whose data directory is new while another
 * member remembers it having committed log entries: it lost its data (a wiped or replaced disk),
 * and with an empty log it would vote for any candidate, so a leader without acknowledged writes
 * could be elected. Such a member must come back through {@code -join}, which has the cluster
 * remove it and add it again as new.
 *
 * <p>Every member knows how far each other member has committed (the leader learns it from their
 * replies and passes it on with its appends), so asking the others is enough. A member that was
 * never reached, like one starting late with a new cluster, is not known to have committed
 * anything and starts as before; members that do not answer (they are starting too) are skipped.
 */
final class LostDataCheck {
  /** How long each other member gets to answer; they are asked in turn, only on a new directory. */
  private static final Duration ASK_TIMEOUT = Duration.ofSeconds(1);

  private LostDataCheck() {}

  /**
   * @throws IOException saying which member remembers what and how to bring this one back
   */
  static void run(RaftConfig config, RaftProperties properties, Parameters parameters) throws IOException {
    RaftGroup group = RatisSettings.group(config);
    RaftPeerId self = RatisSettings.peerId(config.nodeName());
    if (group.getPeers().size() < 2) {
      return;
    }
    RaftProperties quick = new RaftProperties(properties);
    RaftClientConfigKeys.Rpc.setRequestTimeout(quick, TimeDuration.valueOf(ASK_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS));
    try (RaftClient client = RaftClient.newBuilder()
        .setProperties(quick)
        .setParameters(parameters)
        .setRaftGroup(group)
        .setRetryPolicy(RetryPolicies.noRetry())
        .build()) {
      for (RaftPeer peer : group.getPeers()) {
        if (peer.getId().equals(self)) {
          continue;
        }
        Optional<Long> remembered = committedBy(client, peer, self);
        if (remembered.isPresent()) {
          throw new IOException("Raft member " + config.nodeName() + " starts with a new data directory ("
              + config.dataDir() + "), but member " + peer.getId() + " at " + peer.getAddress()
              + " remembers it having committed the log up to index " + remembered.get()
              + ": it lost its data, and voting with an empty log could elect a leader without acknowledged"
              + " writes. Start it with -join HOST:PORT (any member's API address) instead of -cluster:"
              + " the cluster then removes it and adds it again as a new member");
        }
      }
    }
  }

  /** The commit index {@code peer} knows {@code self} reached, if above the first entry. */
  private static Optional<Long> committedBy(RaftClient client, RaftPeer peer, RaftPeerId self) {
    GroupInfoReply info;
    try {
      info = client.getGroupManagementApi(peer.getId()).info(RatisSettings.GROUP_ID);
    } catch (IOException | RuntimeException e) {
      return Optional.empty(); // not up yet, or not in this group: it knows nothing of this member
    }
    for (CommitInfoProto commit : info.getCommitInfos()) {
      // Index 0 is a new cluster's first entry, which a member that was only just reached holds.
      if (RaftPeerId.valueOf(commit.getServer().getId()).equals(self) && commit.getCommitIndex() > 0) {
        return Optional.of(commit.getCommitIndex());
      }
    }
    return Optional.empty();
  }
}
