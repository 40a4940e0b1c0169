package io.setpoint.storage.raft;

import io.setpoint.storage.StorageException;
import io.setpoint.storage.StorageException.Reason;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.SetConfigurationRequest;
import org.apache.ratis.protocol.exceptions.ReconfigurationInProgressException;
import org.apache.ratis.retry.RetryPolicy;
import org.apache.ratis.server.RaftConfiguration;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.util.TimeDuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Who the members are, as this member's Raft division knows them, and changing that through
 * Ratis's configuration change (joint consensus: a new member is first caught up by the leader,
 * by snapshot when it is far behind, and only then counted in a majority).
 *
 * <p>The members given when the data directory was new only start the cluster; afterwards the
 * replicated configuration is the truth, so clients of the cluster ({@link #group()}) are built
 * from it.
 */
final class Membership {
  private static final Logger log = LoggerFactory.getLogger(Membership.class);
  /** How often a change checks whether this member has heard of it. */
  private static final Duration POLL = Duration.ofMillis(10);
  /** How long to wait before trying again while another change is in progress. */
  private static final Duration BUSY_PAUSE = Duration.ofMillis(200);

  private final RaftServer server;
  private final RaftPeerId self;
  /** The members this member was started with: only used until it holds a configuration. */
  private final RaftGroup configured;
  private final RaftProperties properties;
  private final Parameters parameters;
  private final RetryPolicy whileTurnedAway;

  Membership(RaftServer server, RaftPeerId self, RaftGroup configured, RaftProperties properties, Parameters parameters,
      RetryPolicy whileTurnedAway) {
    this.server = server;
    this.self = self;
    this.configured = configured;
    this.properties = properties;
    this.parameters = parameters;
    this.whileTurnedAway = whileTurnedAway;
  }

  /** The current configuration, or null while the division is down. */
  RaftConfiguration conf() {
    try {
      return server.getDivision(RatisSettings.GROUP_ID).getRaftConf();
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  /** The voting members now; the members started with while this member holds no configuration. */
  RaftGroup group() {
    Collection<RaftPeer> peers = peers(conf());
    return peers.isEmpty() ? configured : RaftGroup.valueOf(RatisSettings.GROUP_ID, peers);
  }

  /** True while this member is in the configuration it knows (not before it was added, nor after its removal). */
  boolean isMember() {
    return peers(conf()).stream().anyMatch(p -> p.getId().equals(self));
  }

  /**
   * Adds the member {@code name} at {@code address} and returns once the cluster committed it, the
   * leader having caught it up. When {@code name} is a member at that address already: nothing to
   * do, unless {@code lostItsData}, when it is removed first and then added as new, so that it
   * cannot count in an election or a commit with a log it no longer has.
   */
  void add(String name, String address, boolean lostItsData, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    RaftPeer peer = RaftPeer.newBuilder().setId(name).setAddress(address).build();
    Optional<RaftPeer> existing = find(name);
    if (existing.isPresent()) {
      if (!existing.get().getAddress().equals(address)) {
        throw new IllegalArgumentException("member " + name + " is at " + existing.get().getAddress() + ", not " + address
            + ": remove it first (setpoint operator raft remove-peer -node " + name + "), or choose another name");
      }
      if (!lostItsData) {
        return;
      }
      log.info("member {} lost its data: removing it, then adding it again as new", name);
      remove(name, remaining(deadline));
    }
    change(SetConfigurationRequest.Arguments.newBuilder()
        .setServersInNewConf(List.of(peer))
        .setMode(SetConfigurationRequest.Mode.ADD)
        .build(), "adding " + name + " at " + address, remaining(deadline));
    awaitHere(conf -> contains(conf, name), "adding " + name, deadline);
  }

  /**
   * Removes the member {@code name} (which must not lead: hand leadership over first) and returns
   * once the cluster committed that.
   */
  void remove(String name, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    List<RaftPeer> current = new ArrayList<>(group().getPeers());
    if (current.stream().noneMatch(p -> p.getId().toString().equals(name))) {
      throw new StorageException(Reason.NOT_FOUND, "no member " + name + " in " + names(current));
    }
    if (current.size() == 1) {
      throw new IllegalArgumentException("member " + name + " is the only one: a cluster cannot remove its last member");
    }
    List<RaftPeer> rest = current.stream().filter(p -> !p.getId().toString().equals(name)).toList();
    try {
      // Compare-and-set: a concurrent change makes this one fail rather than undo it.
      change(SetConfigurationRequest.Arguments.newBuilder()
          .setServersInCurrentConf(current)
          .setServersInNewConf(rest)
          .setMode(SetConfigurationRequest.Mode.COMPARE_AND_SET)
          .build(), "removing " + name, remaining(deadline));
    } catch (StorageException e) {
      // An answer lost after the commit, or a retry after it, fails the compare: check the outcome.
      if (find(name).isPresent()) {
        throw e;
      }
    }
    if (!self.toString().equals(name)) {
      // The member removed may never hear of its removal: the leader stops sending to it.
      awaitHere(conf -> !contains(conf, name), "removing " + name, deadline);
    }
  }

  Optional<RaftPeer> find(String name) {
    return group().getPeers().stream().filter(p -> p.getId().toString().equals(name)).findFirst();
  }

  /**
   * A client of the cluster's current members with {@code properties} (this member's unless
   * given), first asking {@code firstAsked} (null: Ratis's choice).
   */
  RaftClient newClient(RaftProperties properties, RetryPolicy retryPolicy, RaftPeerId firstAsked) {
    RaftClient.Builder builder = RaftClient.newBuilder()
        .setProperties(properties == null ? this.properties : properties)
        .setParameters(parameters)
        .setRaftGroup(group())
        .setRetryPolicy(retryPolicy);
    if (firstAsked != null) {
      builder.setLeaderId(firstAsked);
    }
    return builder.build();
  }

  /** Makes the change, waiting for one in progress (another member joining, say) to finish first. */
  private void change(SetConfigurationRequest.Arguments change, String what, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    for (;;) {
      // One attempt may take the whole time: the leader answers once the new member has caught up.
      RaftProperties longer = new RaftProperties(properties);
      RaftClientConfigKeys.Rpc.setRequestTimeout(longer, TimeDuration.valueOf(remaining(deadline).toMillis(), TimeUnit.MILLISECONDS));
      RaftClientReply reply;
      try (RaftClient client = newClient(longer, whileTurnedAway, null)) {
        reply = client.admin().setConfiguration(change);
      } catch (ReconfigurationInProgressException e) {
        reply = null;
      } catch (IOException e) {
        throw new StorageException(Reason.UNAVAILABLE, what + " failed: " + e.getMessage());
      }
      if (reply != null && reply.isSuccess()) {
        return;
      }
      if (reply != null && !(reply.getException() instanceof ReconfigurationInProgressException)) {
        throw new StorageException(Reason.UNAVAILABLE, what + " failed in Raft: " + reply.getException());
      }
      if (System.nanoTime() + BUSY_PAUSE.toNanos() > deadline) {
        throw new StorageException(Reason.UNAVAILABLE, what + " failed: another membership change was still in progress");
      }
      LockSupport.parkNanos(BUSY_PAUSE.toNanos());
    }
  }

  /** Waits until this member's own configuration shows the change (a follower hears of it on the next append). */
  private void awaitHere(Predicate<RaftConfiguration> changed, String what, long deadline) {
    awaitHeard(() -> changed.test(conf()), deadline, what + " was committed, but this member has not heard of it yet");
  }

  /**
   * Waits until {@code heard} holds, as it will once this member hears from the leader what the
   * cluster decided; fails with {@code UNAVAILABLE} and {@code failure} at {@code deadline}
   * ({@link System#nanoTime()}).
   */
  static void awaitHeard(BooleanSupplier heard, long deadline, String failure) {
    while (!heard.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new StorageException(Reason.UNAVAILABLE, failure);
      }
      LockSupport.parkNanos(POLL.toNanos());
    }
  }

  private static boolean contains(RaftConfiguration conf, String name) {
    return peers(conf).stream().anyMatch(p -> p.getId().toString().equals(name));
  }

  private static Collection<RaftPeer> peers(RaftConfiguration conf) {
    return conf == null ? List.of() : conf.getCurrentPeers();
  }

  private static List<String> names(Collection<RaftPeer> peers) {
    return peers.stream().map(p -> p.getId().toString()).sorted().toList();
  }

  private static Duration remaining(long deadline) {
    return Duration.ofNanos(Math.max(1_000_000, deadline - System.nanoTime()));
  }
}
