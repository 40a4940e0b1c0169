package io.setpoint.storage.raft;

import io.setpoint.api.v1.Fence;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Tenancy;
import io.setpoint.api.v1.Type;
import io.setpoint.storage.Backend.Page;
import io.setpoint.storage.Backend.WatchCursor;
import io.setpoint.storage.Backend;
import io.setpoint.storage.Consistency;
import io.setpoint.storage.Health;
import io.setpoint.storage.Replication;
import io.setpoint.storage.StorageException.Reason;
import io.setpoint.storage.StorageException;
import io.setpoint.storage.StoreSnapshot;
import io.setpoint.storage.raft.v1.Batch;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.ratis.retry.RetryPolicy;
import org.apache.ratis.server.RaftServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The replicated, durable {@link Backend}: one member of a Raft cluster (Apache Ratis) whose state
 * machine holds the indexed store. A cluster of one member with a data directory is the durable
 * embedded store; three or five members tolerate one or two failures.
 *
 * <ul>
 *   <li>Writes from any member are committed by the leader and applied by every member in log
 *       order; concurrent writes share log entries (group commit). The leader hands its entries to
 *       its Raft server directly. Other members forward their batches of writes to the leader over
 *       Raft's transport ({@link ForwardedWrites}), and the leader commits them in its own entries,
 *       so the writes of all members share entries. A write returns once this member has applied
 *       it, so the caller reads its own writes here.
 *   <li>{@link Consistency#EVENTUAL} reads, {@link #listByOwner} and watches are served from this
 *       member's applied state. {@link Consistency#STRONG} reads are linearizable: this member
 *       first catches up to the leader's commit index (Raft ReadIndex; the leader's lease when
 *       enabled).
 *   <li>A watch is notified only after its change is readable here. When this member is brought up
 *       to date by a snapshot from the leader instead of the log, its watches close with {@code
 *       WATCH_CLOSED}; they resume from their last revision, as far back as the history the
 *       snapshot retained (older fails with {@code COMPACTED}: list or watch afresh). A snapshot
 *       carries the retained history, so a restarted member resumes watches from the revisions it
 *       retained before it stopped.
 * </ul>
 *
 * <p>A write that times out or loses its leader mid-way fails with {@code UNAVAILABLE}; it may
 * still have been applied, as with any consensus store.
 *
 * <p>As {@link Replication} it tells who leads, so singleton work can follow the leader. Leadership
 * is Raft's view: during a partition a deposed leader may learn late that it lost, so work that
 * follows it must still write with compare-and-swap.
 *
 * <p>This class is the facade; the jobs behind it are {@link RaftBoot} (starting the member),
 * {@link SubmitPipeline} (writes and strong reads through Raft), {@link RaftReplication}
 * (leadership and membership) and {@link RaftErrors} (failures as {@link StorageException}s).
 */
public final class RaftBackend implements Backend, Replication {
  private static final Logger log = LoggerFactory.getLogger(RaftBackend.class);
  /** How long stopping watches for the Raft log to close, to wake its worker ({@link LogWorkerWakeup}). */
  private static final Duration LOG_CLOSE_TIMEOUT = Duration.ofSeconds(30);

  private final ReplicatedStore store;
  private final LeadershipEvents leadership;
  private final RaftServer server;
  private final RaftReplication replication;
  private final SubmitPipeline pipeline;
  /** See {@link SubmitPipeline}: where writes and barriers are answered, off Ratis's threads. */
  private final ExecutorService replies;
  private final MemberHealth health;
  /** Runs {@link #health}'s checks and restarts, the readiness looks, and the write batcher's deadline checks. */
  private final ScheduledExecutorService healthTimer;
  private final ReadinessRule readiness;
  private volatile boolean closed;

  /** Over a started {@code server}; {@link RaftBoot} wires it to the rest. */
  RaftBackend(
      RaftConfig config,
      ReplicatedStore store,
      LeadershipEvents leadership,
      RaftServer server,
      Membership membership,
      RetryPolicy retryPolicy,
      ForwardClient.Transport toLeader,
      ExecutorService replies,
      MemberHealth health,
      ScheduledExecutorService healthTimer,
      RaftActivity activity,
      Set<RaftCustomization> off) {
    this.store = store;
    this.leadership = leadership;
    this.server = server;
    this.replies = replies;
    this.health = health;
    this.healthTimer = healthTimer;
    this.readiness = new ReadinessRule(ReadinessRule.bound(config.tuning()), System::nanoTime);
    this.replication = new RaftReplication(config, server, membership, retryPolicy, leadership, activity, this::checkOpen);
    this.pipeline = new SubmitPipeline(config, store, server, membership, retryPolicy, toLeader, replies, health,
        healthTimer, off, replication::isLeader, replication::leaderPeer, this::checkOpen);
  }

  /**
   * Starts this member: recovers its state from the data directory (latest snapshot, then the log)
   * or creates it, and joins the cluster. Returns without waiting for a leader; requests wait for
   * one, up to the request timeout.
   *
   * <p>The system property {@code setpoint.raft.off} turns this backend's speed changes to Ratis
   * off, to measure what each buys (docs/benchmarks.md, "What each Raft change buys").
   *
   * @throws UncheckedIOException when the data directory or the port cannot be used; when the data
   *     directory is damaged so that starting would serve less than this member acknowledged (a
   *     snapshot or log segment gone or failing its checksum, {@code raft-meta} lost on a member
   *     of a cluster), the message names the files, the cause and what to do
   * @throws IllegalArgumentException when a {@linkplain RaftConfig#tls() TLS} file cannot be used
   *     (the message names it)
   * @throws IllegalStateException when {@code setpoint.raft.off} names an unknown change
   */
  public static RaftBackend start(RaftConfig config) {
    return start(config, batch -> {}, RaftCustomization.offInThisJvm());
  }

  /**
   * {@link #start(RaftConfig)}, calling {@code beforeApply} with every batch before this member
   * applies it: tests throw from it to inject a failure of the state machine.
   */
  static RaftBackend start(RaftConfig config, Consumer<Batch> beforeApply) {
    return start(config, beforeApply, RaftCustomization.offInThisJvm());
  }

  /**
   * {@link #start(RaftConfig, Consumer)} with the customizations in {@code off} turned off, as
   * {@link RaftCustomization#PROPERTY} does.
   */
  static RaftBackend start(RaftConfig config, Consumer<Batch> beforeApply, Set<RaftCustomization> off) {
    return RaftBoot.start(config, beforeApply, off);
  }

  // ---- Backend

  @Override
  public Resource read(Consistency consistency, ID id) {
    checkOpen();
    if (consistency == Consistency.STRONG) {
      pipeline.catchUp();
    }
    return store.engine().read(id);
  }

  @Override
  public Resource writeCas(Resource resource, Fence fence) {
    return writeCas(resource, fence, "");
  }

  @Override
  public Resource writeCas(Resource resource, Fence fence, String requestId) {
    return RaftOps.written(resource, pipeline.submit(RaftOps.write(resource, fence, requestId)));
  }

  @Override
  public CompletableFuture<Resource> writeCasAsync(Resource resource, Fence fence) {
    return writeCasAsync(resource, fence, "");
  }

  /** Completes on a thread of this backend's, never on one of Ratis's. */
  @Override
  public CompletableFuture<Resource> writeCasAsync(Resource resource, Fence fence, String requestId) {
    return pipeline.submitAsync(RaftOps.write(resource, fence, requestId))
        .thenApply(outcome -> RaftOps.written(resource, outcome));
  }

  /** Decided by the state machine as it applies the entry; completes off Ratis's threads. */
  @Override
  public CompletableFuture<Resource> putAsync(
      Resource resource, Fence fence, String requestId, String uid, String generation) {
    return pipeline.submitAsync(RaftOps.put(resource, fence, requestId, uid, generation)).thenApply(RaftOps::stored);
  }

  /** Served from this member's applied state, which includes every write made through it. */
  @Override
  public Resource findRequest(ID id, String requestId) {
    checkOpen();
    return store.engine().findRequest(id, requestId);
  }

  @Override
  public Resource deleteCas(ID id, String version, Fence fence, String requestId) {
    return RaftOps.deleted(pipeline.submit(RaftOps.delete(id, version, fence, requestId)));
  }

  @Override
  public Page list(
      Consistency consistency, Type type, Tenancy tenancy, String namePrefix, int limit, String pageToken) {
    checkOpen();
    if (consistency == Consistency.STRONG) {
      pipeline.catchUp();
    }
    return store.engine().list(type, tenancy, namePrefix, limit, pageToken);
  }

  /** Served from this member's applied state, which includes every write made through it. */
  @Override
  public List<Resource> listByOwner(ID owner) {
    checkOpen();
    return store.engine().listByOwner(owner);
  }

  /**
   * A watch resumed from a revision this member has not applied yet first waits, up to the request
   * timeout, until the member has applied everything committed: a member just restarted, or a
   * follower behind, has not yet shown a revision that the leader (or it, before it stopped) sent.
   * Only a revision still ahead then is refused with {@code FUTURE_REVISION}.
   */
  @Override
  public WatchCursor watch(Type type, Tenancy tenancy, String namePrefix, long sinceRevision) {
    checkOpen();
    if (Long.compareUnsigned(sinceRevision, store.engine().revision()) > 0) {
      try {
        pipeline.catchUp();
      } catch (StorageException e) {
        // No leader to catch up with before the timeout: the revision is judged by what is applied.
      }
    }
    return store.engine().watch(type, tenancy, namePrefix, sinceRevision);
  }

  /**
   * Not ok while this member's Raft log cannot be written (a full disk: until space is freed, when
   * it resumes by itself), after Raft stopped on it for good (until the agent is restarted), and
   * while it cannot commit or apply writes ({@link ReadinessRule}: no leader, cut off from the
   * leader or from a majority, commits or applying stalled).
   */
  @Override
  public Health health() {
    if (closed) {
      return Health.failing("the store is shut down");
    }
    Health member = health.health();
    Health progress = member.ok() ? lookAtProgress() : null;
    return progress != null ? progress : member;
  }

  /** One look at the division for {@link #readiness}; null while the division is down. */
  Health lookAtProgress() {
    try {
      return readiness.observe(RaftProgress.of(server.getDivision(RatisSettings.GROUP_ID)));
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  /** Where the leader queues the batches other members forward to it. */
  WriteBatcher batcher() {
    return pipeline.batcher();
  }

  /** The log stopped taking writes: fail those queued, and stop acting as leader. */
  void stopWrites(StorageException refusal) {
    pipeline.failQueued(refusal);
    leadership.accept(false);
  }

  // ---- Replication

  @Override
  public String nodeName() {
    return replication.nodeName();
  }

  @Override
  public List<Member> members() {
    return replication.members();
  }

  @Override
  public RaftStatus status() {
    return replication.status();
  }

  /** True when this member is the Raft leader and has applied every entry of earlier terms. */
  @Override
  public boolean isLeader() {
    return replication.isLeader();
  }

  /** The node name of the leader this member knows of, if any. */
  public Optional<String> leader() {
    return replication.leader();
  }

  /**
   * Tells {@code listener} whether this member leads (true once it leads and has applied every
   * entry of earlier terms), now and on every change, one call at a time from one thread of the
   * backend, until the returned handle is closed or the backend closes (which tells it false). A
   * listener should return quickly.
   */
  @Override
  public AutoCloseable onLeadershipChange(Consumer<Boolean> listener) {
    return replication.onLeadershipChange(listener);
  }

  @Override
  public String transferLeadership(String to, Duration timeout) {
    return replication.transferLeadership(to, timeout);
  }

  @Override
  public List<Member> addMember(String name, String address, boolean lostItsData, Duration timeout) {
    return replication.addMember(name, address, lostItsData, timeout);
  }

  @Override
  public List<Member> removeMember(String name, Duration timeout) {
    return replication.removeMember(name, timeout);
  }

  /**
   * True while this member is in the cluster's membership as it knows it: false for a {@linkplain
   * RaftConfig#join() joining} member until it is added, and after it was removed.
   */
  public boolean isMember() {
    return replication.isMember();
  }

  /** Raft's view of this member: its log positions (for {@link BackupRestore} and tests). */
  RaftReplication replication() {
    return replication;
  }

  // ---- the store as applied here, and closing

  @Override
  public long revision() {
    return store.applied().get();
  }

  /** This member's store as it has applied it (a follower's may trail the leader's). */
  @Override
  public StoreSnapshot snapshot() {
    return store.engine().snapshot();
  }

  @Override
  public void closeWatches(String reason) {
    store.engine().closeWatches(reason);
  }

  /** Closes every watch, leaves the cluster (the data directory stays) and releases the port. */
  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    health.close();
    pipeline.close();
    store.engine().close();
    LogWorkerWakeup.whenClosed(server, LOG_CLOSE_TIMEOUT);
    closeQuietly(server);
    // Only now: until the server has answered every write in flight, their deadlines still count.
    healthTimer.shutdownNow();
    awaitQuietly(healthTimer);
    replies.shutdown();
    leadership.close();
  }

  private void checkOpen() {
    if (closed) {
      throw new StorageException(Reason.UNAVAILABLE, "the store is shut down");
    }
  }

  private static void awaitQuietly(ExecutorService executor) {
    try {
      if (!executor.awaitTermination(10, TimeUnit.SECONDS)) {
        log.warn("{} did not stop within 10 s", executor);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Closes {@code closeable} (null: nothing), logging a failure rather than throwing it. */
  static void closeQuietly(AutoCloseable closeable) {
    if (closeable == null) {
      return;
    }
    try {
      closeable.close();
    } catch (Exception e) {
      log.warn("closing {} failed", closeable, e);
    }
  }
}
