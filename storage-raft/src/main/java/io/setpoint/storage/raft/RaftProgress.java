package io.setpoint.storage.raft;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.ratis.proto.RaftProtos.CommitInfoProto;
import org.apache.ratis.proto.RaftProtos.RoleInfoProto;
import org.apache.ratis.proto.RaftProtos.ServerRpcProto;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.DivisionInfo;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.protocol.TermIndex;

/**
 * What one look at this member's Raft division saw, for {@link ReadinessRule}.
 *
 * @param role whether the member leads, follows a known leader, or neither (an election is on)
 * @param leader the leader's name, or null when none is known
 * @param commitIndex the commit index this member knows
 * @param appliedIndex the last log index this member applied
 * @param lastIndex the last index in this member's log
 * @param clusterCommitIndex the highest commit index this member has heard of: its own, or the
 *     leader's as the leader last reported it
 * @param leaderSilence a follower's time since it last heard from its leader (zero otherwise)
 * @param followerSilences a leader's time since each other voting member last answered it
 * @param voters how many members vote
 */
record RaftProgress(
    Role role,
    String leader,
    long commitIndex,
    long appliedIndex,
    long lastIndex,
    long clusterCommitIndex,
    Duration leaderSilence,
    List<Duration> followerSilences,
    int voters) {
  enum Role { LEADER, FOLLOWER, NONE }

  RaftProgress {
    followerSilences = List.copyOf(followerSilences);
  }

  /** What {@code division} shows now. */
  static RaftProgress of(RaftServer.Division division) {
    DivisionInfo info = division.getInfo();
    RoleInfoProto roleInfo = info.getRoleInfoProto();
    RaftPeerId leader = info.getLeaderId();
    long commit = division.getRaftLog().getLastCommittedIndex();
    TermIndex last = division.getRaftLog().getLastEntryTermIndex();
    long clusterCommit = commit;
    if (leader != null) {
      for (CommitInfoProto c : division.getCommitInfos()) {
        if (RaftPeerId.valueOf(c.getServer().getId()).equals(leader)) {
          clusterCommit = Math.max(clusterCommit, c.getCommitIndex());
        }
      }
    }
    Set<RaftPeerId> voters = division.getRaftConf().getCurrentPeers().stream()
        .map(RaftPeer::getId).collect(Collectors.toSet());
    List<Duration> followerSilences = new ArrayList<>();
    if (roleInfo.hasLeaderInfo()) {
      for (ServerRpcProto follower : roleInfo.getLeaderInfo().getFollowerInfoList()) {
        if (voters.contains(RaftPeerId.valueOf(follower.getId().getId()))) {
          followerSilences.add(Duration.ofMillis(follower.getLastRpcElapsedTimeMs()));
        }
      }
    }
    Role role = info.isLeader() ? Role.LEADER : info.isFollower() && leader != null ? Role.FOLLOWER : Role.NONE;
    Duration leaderSilence = role == Role.FOLLOWER && roleInfo.hasFollowerInfo()
        ? Duration.ofMillis(roleInfo.getFollowerInfo().getLeaderInfo().getLastRpcElapsedTimeMs())
        : Duration.ZERO;
    return new RaftProgress(role, leader == null ? null : leader.toString(), commit, info.getLastAppliedIndex(),
        last == null ? commit : last.getIndex(), clusterCommit, leaderSilence, followerSilences, voters.size());
  }
}
