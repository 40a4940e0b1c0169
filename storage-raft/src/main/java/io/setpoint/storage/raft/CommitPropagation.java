package io.setpoint.storage.raft;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.grpc.GrpcFactory;
import org.apache.ratis.grpc.server.GrpcLogAppender;
import org.apache.ratis.proto.RaftProtos.AppendEntriesRequestProto;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.rpc.RpcFactory;
import org.apache.ratis.rpc.RpcType;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.leader.FollowerInfo;
import org.apache.ratis.server.leader.LeaderState;
import org.apache.ratis.server.leader.LogAppender;
import org.apache.ratis.server.raftlog.RaftLogIOException;
import org.apache.ratis.util.AwaitForSignal;
import org.apache.ratis.util.LifeCycle;

/**
 * Tells a follower at once that the writes it forwarded are committed. A follower learns of a commit
 * from the leader's next append. Ratis's leader sends one when its commit index moves only by
 * writing a metadata entry, which {@link RatisSettings} turns off (an fsync and a replication round
 * per commit); an appender woken with no entry to send sends nothing. So when no newer entry was on
 * its way, a follower that forwarded writes learnt that they were committed, and could answer its
 * writers, only at the leader's next heartbeat, up to half an election timeout later. When the
 * leader answers such a forward, it {@linkplain #tell tells} that follower's appender, which sends
 * the commit index alone, as a heartbeat does.
 *
 * <p>Only the forwarding follower is told, and only when nothing newer carries the commit: telling
 * every follower of every commit doubles the appends when entries follow each other one in flight,
 * as they do at a few clients, and costs those clients a third of their writes (see
 * docs/benchmarks-history.md). Watchers on a follower still see a write made on the leader with the next
 * entry or heartbeat.
 *
 * <p>The appenders also wait on a {@link WakeUp} that keeps a signal sent while nobody waits:
 * Ratis's drops it, and an appender then slept until its next heartbeat with an entry or a commit
 * to send. And with no minimum wait between appends ({@link RatisSettings}), they pause a
 * millisecond after an attempt that had entries to send but built nothing, rather than none.
 */
final class CommitPropagation {
  /** The {@link Parameters} key under which a server's {@link Rpc} factory finds this. */
  static final String PARAMETER = "setpoint.commit-propagation";

  private final Map<RaftPeerId, Appender> appenders = new ConcurrentHashMap<>();

  /** Puts this where the server's transport finds it; see {@link Rpc}. */
  void install(Parameters parameters) {
    parameters.put(PARAMETER, this, CommitPropagation.class);
  }

  /**
   * Sends {@code member} this leader's commit index as soon as it can take it (once it holds the
   * entries up to it), unless an append carrying it is on its way. Does nothing on a member that
   * does not lead.
   */
  void tell(String member) {
    Appender appender = appenders.get(RaftPeerId.valueOf(member));
    if (appender != null) {
      appender.wantCommit(appender.getRaftLog().getLastCommittedIndex());
    }
  }

  /**
   * Ratis's gRPC transport with the appenders above, chosen by class name in {@link RatisSettings}
   * ({@code raft.rpc.type}); Ratis makes one through its no-argument constructor. A factory whose
   * {@link Parameters} hold no {@link CommitPropagation} (a client's) is plain gRPC.
   */
  static final class Rpc implements RpcType {
    @Override
    public String name() {
      return Rpc.class.getName();
    }

    @Override
    public RpcFactory newFactory(Parameters parameters) {
      CommitPropagation propagation = parameters.get(PARAMETER, CommitPropagation.class);
      return propagation == null ? new GrpcFactory(parameters) : propagation.new Factory(parameters);
    }
  }

  private final class Factory extends GrpcFactory {
    Factory(Parameters parameters) {
      super(parameters);
    }

    @Override
    public LogAppender newLogAppender(RaftServer.Division server, LeaderState state, FollowerInfo follower) {
      return new Appender(server, state, follower);
    }
  }

  /**
   * One follower's appender on the leader. Asked for a commit index, and woken with no entry to
   * send, it sends the commit index alone rather than nothing.
   */
  private final class Appender extends GrpcLogAppender {
    /** The commit index the follower was last asked to be told. */
    private final AtomicLong wanted = new AtomicLong();
    /**
     * The highest commit index the follower could take from what was sent to it: a follower
     * commits no further than the entries it holds (its match index then).
     */
    private long commitSent;
    /** Whether the last request built was none: see {@link #getWaitTimeMs()}. */
    private boolean builtNothing;
    private final WakeUp wakeUp;

    Appender(RaftServer.Division server, LeaderState state, FollowerInfo follower) {
      super(server, state, follower);
      wakeUp = new WakeUp(this);
    }

    /** What the appender waits on between sends, and what {@link #notifyLogAppender()} signals. */
    @Override
    public AwaitForSignal getEventAwaitForSignal() {
      return wakeUp;
    }

    @Override
    public void start() {
      appenders.put(getFollowerId(), this);
      super.start();
    }

    @Override
    public CompletableFuture<LifeCycle.State> stopAsync() {
      appenders.remove(getFollowerId(), this);
      return super.stopAsync();
    }

    void wantCommit(long index) {
      if (wanted.accumulateAndGet(index, Math::max) > getFollower().getCommitIndex()) {
        notifyLogAppender();
      }
    }

    /**
     * How long the appender's thread waits before it looks again, unless woken. With no minimum
     * wait between appends ({@link RatisSettings}), an appender with entries it cannot send (the
     * entry before them was purged, so the follower needs a snapshot first) would look again at once,
     * over and over; it waits a millisecond, as with Ratis's default minimum.
     */
    @Override
    public long getWaitTimeMs() {
      long wait = super.getWaitTimeMs();
      return wait == 0 && builtNothing ? 1 : wait;
    }

    /** Called by the appender's own thread, under its lock. */
    @Override
    public AppendEntriesRequestProto newAppendEntriesRequest(long callId, boolean heartbeat) throws RaftLogIOException {
      AppendEntriesRequestProto request = super.newAppendEntriesRequest(callId, heartbeat);
      FollowerInfo follower = getFollower();
      if (request == null) {
        long known = Math.max(follower.getCommitIndex(), commitSent);
        long takes = Math.min(getRaftLog().getLastCommittedIndex(), follower.getMatchIndex());
        if (wanted.get() > known && takes > known) {
          request = super.newAppendEntriesRequest(callId, true);
        }
      }
      builtNothing = request == null;
      if (request != null) {
        commitSent = Math.max(commitSent, Math.min(request.getLeaderCommit(), follower.getMatchIndex()));
      }
      return request;
    }
  }

  /**
   * A wake-up that is not lost. Ratis's {@link AwaitForSignal} wakes only a thread already
   * waiting: a signal sent while its appender is still deciding what to send (a follower's reply,
   * a new entry, a {@link #tell}) is dropped, and the appender then sleeps until its next
   * heartbeat, half an election timeout. Here a signal with nobody waiting makes the next wait
   * return at once.
   */
  static final class WakeUp extends AwaitForSignal {
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition signalled = lock.newCondition();
    private boolean pending;

    WakeUp(Object name) {
      super(name);
    }

    @Override
    public void signal() {
      lock.lock();
      try {
        pending = true;
        signalled.signalAll();
      } finally {
        lock.unlock();
      }
    }

    @Override
    public void await() throws InterruptedException {
      while (!await(Long.MAX_VALUE, TimeUnit.NANOSECONDS)) {
        // awaitNanos gives up after Long.MAX_VALUE nanoseconds (292 years): wait on.
      }
    }

    @Override
    public boolean await(long time, TimeUnit unit) throws InterruptedException {
      if (time <= 0) {
        return false;
      }
      lock.lock();
      try {
        long left = unit.toNanos(time);
        while (!pending) {
          if (left <= 0) {
            return false;
          }
          left = signalled.awaitNanos(left);
        }
        pending = false;
        return true;
      } finally {
        lock.unlock();
      }
    }
  }
}
