package io.setpoint.storage.raft;

import io.setpoint.storage.Replication;
import io.setpoint.storage.StorageException;
import io.setpoint.storage.StorageException.Reason;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Consumer;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.proto.RaftProtos.CommitInfoProto;
import org.apache.ratis.proto.RaftProtos.RoleInfoProto;
import org.apache.ratis.proto.RaftProtos.ServerRpcProto;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.retry.RetryPolicy;
import org.apache.ratis.server.DivisionInfo;
import org.apache.ratis.server.RaftConfiguration;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.protocol.TermIndex;

/**
 * The {@link Replication} side of a member: who leads and who the members are, as its Raft
 * division knows them, Raft's log positions, and the changes of leader and membership asked of it.
 */
final class RaftReplication implements Replication {
  private final RaftConfig config;
  private final RaftServer server;
  private final Membership membership;
  /** For leadership transfers. */
  private final RetryPolicy retryPolicy;
  private final LeadershipEvents leadership;
  private final RaftActivity activity;
  /** Throws when the backend is closed; called first by each change asked. */
  private final Runnable checkOpen;

  RaftReplication(RaftConfig config, RaftServer server, Membership membership, RetryPolicy retryPolicy,
      LeadershipEvents leadership, RaftActivity activity, Runnable checkOpen) {
    this.config = config;
    this.server = server;
    this.membership = membership;
    this.retryPolicy = retryPolicy;
    this.leadership = leadership;
    this.activity = activity;
    this.checkOpen = checkOpen;
  }

  @Override
  public String nodeName() {
    return config.nodeName();
  }

  @Override
  public List<Member> members() {
    try {
      RaftServer.Division division = server.getDivision(RatisSettings.GROUP_ID);
      DivisionInfo info = division.getInfo();
      RaftPeerId leader = info.getLeaderId();
      String self = config.nodeName();
      Map<String, Duration> contact = new HashMap<>();
      RoleInfoProto role = info.getRoleInfoProto();
      if (role.hasLeaderInfo()) {
        for (ServerRpcProto follower : role.getLeaderInfo().getFollowerInfoList()) {
          contact.put(RaftPeerId.valueOf(follower.getId().getId()).toString(), Duration.ofMillis(follower.getLastRpcElapsedTimeMs()));
        }
      } else if (role.hasFollowerInfo() && leader != null) {
        contact.put(leader.toString(), Duration.ofMillis(role.getFollowerInfo().getLeaderInfo().getLastRpcElapsedTimeMs()));
      }
      contact.put(self, Duration.ZERO);
      Map<String, Long> index = new HashMap<>();
      for (CommitInfoProto c : division.getCommitInfos()) {
        index.put(RaftPeerId.valueOf(c.getServer().getId()).toString(), c.getCommitIndex());
      }
      index.put(self, info.getLastAppliedIndex());
      Duration silence = config.tuning().electionTimeoutMax();
      return division.getRaftConf().getCurrentPeers().stream()
          .map(p -> {
            String name = p.getId().toString();
            Optional<Duration> last = Optional.ofNullable(contact.get(name));
            Long known = index.get(name);
            return new Member(name, p.getAddress(), p.getId().equals(leader),
                known == null ? OptionalLong.empty() : OptionalLong.of(known), last,
                last.isPresent() && last.get().compareTo(silence) > 0);
          })
          .sorted(Comparator.comparing(Member::name))
          .toList();
    } catch (IOException e) {
      throw new StorageException(Reason.UNAVAILABLE, "this member is not running: " + e.getMessage());
    }
  }

  @Override
  public RaftStatus status() {
    long term = 0;
    long commit = 0;
    long applied = 0;
    LogSync logSync = LogSync.NONE;
    try {
      RaftServer.Division division = server.getDivision(RatisSettings.GROUP_ID);
      term = division.getInfo().getCurrentTerm();
      commit = division.getRaftLog().getLastCommittedIndex();
      applied = division.getInfo().getLastAppliedIndex();
      logSync = RaftLogSyncs.of(division.getRaftLog());
    } catch (IOException | RuntimeException e) {
      // The division is down (restarting after a log failure, or closed): positions read 0.
    }
    return new RaftStatus(term, commit, applied, activity.leaderChanges.get(), activity.snapshots.get(),
        Duration.ofNanos(activity.snapshotNanos.get()), logSync);
  }

  @Override
  public boolean isLeader() {
    DivisionInfo info = info();
    return info != null && info.isLeader() && info.isLeaderReady();
  }

  /** The leader this member knows of, with its address; null while none is. */
  RaftPeer leaderPeer() {
    DivisionInfo info = info();
    RaftPeerId leader = info == null ? null : info.getLeaderId();
    RaftConfiguration members = leader == null ? null : membership.conf();
    return members == null ? null : members.getPeer(leader);
  }

  /** See {@link RaftBackend#leader}. */
  Optional<String> leader() {
    DivisionInfo info = info();
    return info == null ? Optional.empty() : Optional.ofNullable(info.getLeaderId()).map(RaftPeerId::toString);
  }

  @Override
  public AutoCloseable onLeadershipChange(Consumer<Boolean> listener) {
    return leadership.add(listener);
  }

  @Override
  public String transferLeadership(String to, Duration timeout) {
    checkOpen.run();
    List<Member> members = members();
    String current = members.stream().filter(Member::leader).map(Member::name).findFirst().orElse(null);
    String target = to;
    if (target.isEmpty()) {
      target = members.stream().filter(m -> !m.unreachable()).map(Member::name).filter(n -> !n.equals(current)).findFirst()
          .orElseThrow(() -> new StorageException(Reason.UNAVAILABLE, "there is no other member to lead"));
    } else if (members.stream().noneMatch(m -> m.name().equals(to))) {
      throw new StorageException(Reason.NOT_FOUND, "no member " + to + " in " + members);
    }
    if (target.equals(current)) {
      return target;
    }
    RaftClientReply reply;
    try (RaftClient client = membership.newClient(null, retryPolicy, null)) {
      reply = client.admin().transferLeadership(RaftPeerId.valueOf(target), timeout.toMillis());
    } catch (IOException e) {
      throw new StorageException(Reason.UNAVAILABLE, "leadership did not move to " + target + ": " + e);
    }
    RaftErrors.checkReply(reply, "leadership transfer to " + target);
    // The old leader has stepped down for the target; wait until this member has heard of it.
    String leading = target;
    Membership.awaitHeard(() -> leader().equals(Optional.of(leading)), System.nanoTime() + timeout.toNanos(),
        "leadership did not reach " + target + " within " + timeout);
    return target;
  }

  @Override
  public List<Member> addMember(String name, String address, boolean lostItsData, Duration timeout) {
    checkOpen.run();
    membership.add(name, address, lostItsData, timeout);
    return members();
  }

  @Override
  public List<Member> removeMember(String name, Duration timeout) {
    checkOpen.run();
    long deadline = System.nanoTime() + timeout.toNanos();
    if (leader().equals(Optional.of(name)) && membership.group().getPeers().size() > 1) {
      // Hand over first, so writes pause for a transfer rather than for an election.
      try {
        transferLeadership("", timeout);
      } catch (StorageException e) {
        // Another member than the one asked may have won the election the transfer started.
        if (leader().equals(Optional.of(name))) {
          throw e;
        }
      }
    }
    membership.remove(name, Duration.ofNanos(Math.max(1_000_000, deadline - System.nanoTime())));
    return members();
  }

  /** See {@link RaftBackend#isMember}. */
  boolean isMember() {
    return membership.isMember();
  }

  /** The log position of the last entry this member applied, or null while its division is down. */
  TermIndex lastAppliedTermIndex() {
    try {
      RaftServer.Division division = server.getDivision(RatisSettings.GROUP_ID);
      long index = division.getInfo().getLastAppliedIndex();
      return index < 0 ? null : division.getRaftLog().getTermIndex(index);
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  /** The index of the last Raft log entry this member applied (for tests of group commit). */
  long lastAppliedLogIndex() {
    DivisionInfo info = info();
    return info == null ? 0 : info.getLastAppliedIndex();
  }

  /** How many requests Raft's retry cache holds on this member (for tests of what it keeps). */
  long retryCacheSize() {
    try {
      return server.getDivision(RatisSettings.GROUP_ID).getRetryCache().getStatistics().size();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The index of the oldest Raft log entry this member still holds (for tests of purging). */
  long logStartIndex() {
    try {
      return server.getDivision(RatisSettings.GROUP_ID).getRaftLog().getStartIndex();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private DivisionInfo info() {
    try {
      return server.getDivision(RatisSettings.GROUP_ID).getInfo();
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }
}
