package io.setpoint.storage.raft;

import io.setpoint.api.Resources;
import io.setpoint.api.v1.Fence;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Tenancy;
import io.setpoint.api.v1.Type;
import io.setpoint.storage.Backend;
import io.setpoint.storage.Consistency;
import io.setpoint.storage.Health;
import io.setpoint.storage.Page;
import io.setpoint.storage.Replication;
import io.setpoint.storage.StorageException.Reason;
import io.setpoint.storage.StorageException;
import io.setpoint.storage.StoreSnapshot;
import io.setpoint.storage.WatchCursor;
import io.setpoint.storage.engine.StoreEngine;
import io.setpoint.storage.raft.v1.Batch;
import io.setpoint.storage.raft.v1.BatchReply;
import io.setpoint.storage.raft.v1.Delete;
import io.setpoint.storage.raft.v1.Forward;
import io.setpoint.storage.raft.v1.Op;
import io.setpoint.storage.raft.v1.Outcome;
import io.setpoint.storage.raft.v1.Put;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.proto.RaftProtos.CommitInfoProto;
import org.apache.ratis.proto.RaftProtos.RoleInfoProto;
import org.apache.ratis.proto.RaftProtos.ServerRpcProto;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.retry.RetryPolicy;
import org.apache.ratis.server.DivisionInfo;
import org.apache.ratis.server.RaftConfiguration;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.storage.RaftStorage;
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
 */
public final class RaftBackend implements Backend, Replication {
  private static final Duration RETRY_PAUSE_MIN = Duration.ofMillis(10);
  private static final Duration RETRY_PAUSE_MAX = Duration.ofMillis(250);

  private static final Logger log = LoggerFactory.getLogger(RaftBackend.class);
  /** How often the Raft division is checked and, after its log failed, the data directory probed. */
  private static final Duration HEALTH_EVERY = Duration.ofSeconds(1);
  /** How often the division's progress is looked at for {@link #health()} between questions. */
  private static final Duration READINESS_EVERY = Duration.ofMillis(100);
  /** How long stopping watches for the Raft log to close, to wake its worker ({@link LogWorkerWakeup}). */
  private static final Duration LOG_CLOSE_TIMEOUT = Duration.ofSeconds(30);

  private final RaftConfig config;
  private final RaftPeerId self;
  private final ReplicatedStore store;
  private final LeadershipEvents leadership;
  private final RaftServer server;
  private final Membership membership;
  /** For leadership transfers. */
  private final RetryPolicy retryPolicy;
  /** Forwards batches of writes to the leader; never repeats one that may have been committed. */
  private final ForwardClient forwards;
  private final LocalSubmitter local;
  /**
   * Where entries or read barriers go instead, when {@link RaftCustomization#LOCAL_SUBMITTER} or
   * {@link RaftCustomization#FORWARD_STREAM} is off; null while both are on.
   */
  private final ClientSubmitter viaClient;
  /** Whether this member's own entries and read barriers go through {@link #viaClient}. */
  private final boolean submitViaClient;
  /** Whether a follower's batches go through {@link #viaClient} rather than the forward stream. */
  private final boolean forwardViaClient;
  /**
   * Where entries and barriers are sent from once a Raft answer makes room for them, and where
   * forwards and barriers are answered: never on a Ratis thread, because handing an entry to this
   * member's own server appends it on the caller's thread, which may wait for room in the log's
   * queue (which a Ratis thread, say the one applying entries, must not do).
   */
  private final ExecutorService replies;
  private final WriteBatcher writes;
  private final ReadBarrier reads;
  private final Duration timeout;
  private final MemberHealth health;
  private final RaftActivity activity;
  /** Runs {@link #health}'s checks and restarts, the readiness looks, and the write batcher's deadline checks. */
  private final ScheduledExecutorService healthTimer;
  private final ReadinessRule readiness;
  private volatile boolean closed;

  private RaftBackend(
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
    this.activity = activity;
    this.submitViaClient = off.contains(RaftCustomization.LOCAL_SUBMITTER);
    this.forwardViaClient = off.contains(RaftCustomization.FORWARD_STREAM);
    this.config = config;
    this.self = RatisSettings.peerId(config.nodeName());
    this.store = store;
    this.leadership = leadership;
    this.server = server;
    this.membership = membership;
    this.retryPolicy = retryPolicy;
    this.replies = replies;
    this.health = health;
    this.healthTimer = healthTimer;
    this.readiness = new ReadinessRule(ReadinessRule.bound(config.tuning()), System::nanoTime);
    this.local = new LocalSubmitter(server, self);
    this.viaClient = submitViaClient || forwardViaClient
        ? new ClientSubmitter(membership.newClient(null, retryPolicy, null), self)
        : null;
    this.timeout = config.tuning().requestTimeout();
    RaftTuning t = config.tuning();
    this.writes = new WriteBatcher(this::replicate, this::appliedHere, t.maxBatchOps(), t.maxBatchBytes(), t.maxBatchesInFlight(), timeout,
        RatisSettings.heapShare(t), healthTimer, replies);
    this.reads = new ReadBarrier(this::readIndex);
    // A batch on its way to a member that lost the lead gets that member's answer in well under an
    // election timeout, or is caught behind a partition.
    this.forwards = new ForwardClient(config.nodeName(), this::leaderPeer, this::ownEntry, toLeader, timeout,
        t.electionTimeoutMin(), System::nanoTime, healthTimer, replies);
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
    if (!off.isEmpty()) {
      log.warn("Raft member {} runs with these customizations off ({}): {}", config.nodeName(),
          RaftCustomization.PROPERTY, off.stream().sorted().map(RaftCustomization::flag).toList());
    }
    // First, so that unusable TLS files fail before anything starts.
    CommitPropagation commits = new CommitPropagation();
    ForwardedWrites forwarded = new ForwardedWrites(commits::tell);
    var parameters = RatisSettings.parameters(config, new ForwardService(forwarded), off);
    if (!off.contains(RaftCustomization.COMMIT_PROPAGATION)) {
      commits.install(parameters);
    }
    ReplicatedStore store = new ReplicatedStore(config.limits());
    RaftActivity activity = new RaftActivity();
    LeadershipEvents leadership = new LeadershipEvents();
    RaftGroup group = RatisSettings.group(config);
    var properties = RatisSettings.properties(config, off);
    ExecutorService replies =
        Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("setpoint-raft-reply-", 0).factory());
    StartupCheck check = new StartupCheck(config, properties);
    ScheduledExecutorService healthTimer = Executors.newSingleThreadScheduledExecutor(
        Thread.ofPlatform().daemon().name("setpoint-raft-health-" + config.nodeName()).factory());
    // Room for the log to grow by two preallocated chunks before a failed member resumes.
    long resumeFree = 2 * RaftServerConfigKeys.Log.preallocatedSize(properties).getSize();
    MemberHealth health = new MemberHealth(config.dataDir(), resumeFree, HEALTH_EVERY, healthTimer);
    RaftServer server = null;
    try {
      // The snapshot the check chose is for the first division; one started again after its log
      // failed loads the latest snapshot itself (see StoreStateMachine).
      if (!config.join() && new DataDirectory(config).isNew()) {
        LostDataCheck.run(config, properties, parameters);
      }
      AtomicReference<StartupCheck.Start> first = new AtomicReference<>(check.run());
      AtomicBoolean started = new AtomicBoolean();
      server = started(
          RaftServer.newBuilder()
              .setServerId(RatisSettings.peerId(config.nodeName()))
              .setGroup(RatisSettings.startingGroup(config))
              // A state machine per division: one started again after its log failed gets a new one.
              .setStateMachineRegistry(groupId -> {
                boolean firstDivision = !started.getAndSet(true);
                return new StoreStateMachine(
                    store, leadership, health, beforeApply, firstDivision, first.getAndSet(null), activity);
              })
              .setProperties(properties)
              .setParameters(parameters)
              // Recovers an existing data directory, formats a new one.
              .setOption(RaftStorage.StartupOption.RECOVER),
          check,
          config);
      Membership membership = new Membership(
          server, RatisSettings.peerId(config.nodeName()), group, properties, parameters,
          RatisSettings.retryWhileTurnedAway(config.tuning()));
      RaftBackend backend = new RaftBackend(config, store, leadership, server, membership,
          RatisSettings.retryPolicy(config.tuning()), RatisSettings.toLeader(properties, parameters),
          replies, health, healthTimer, activity, off);
      forwarded.open(backend.writes, backend::isLeader);
      health.attach(server, group, RatisSettings.peerId(config.nodeName()), backend::stopWrites);
      // Looks between questions too, so a stall is timed from when it began, not from the next probe.
      healthTimer.scheduleWithFixedDelay(
          () -> backend.lookAtProgress(), READINESS_EVERY.toMillis(), READINESS_EVERY.toMillis(), TimeUnit.MILLISECONDS);
      return backend;
    } catch (IOException e) {
      closeQuietly(server);
      replies.shutdown();
      healthTimer.shutdownNow();
      leadership.close();
      throw new UncheckedIOException(e.getMessage(), e);
    } catch (RuntimeException e) {
      closeQuietly(server);
      replies.shutdown();
      healthTimer.shutdownNow();
      leadership.close();
      throw e;
    }
  }

  /**
   * Builds and starts the Raft server; when that fails, the failure names the damaged log segment
   * if there is one (Ratis's own names neither the file nor, beyond a stack trace, the cause), else
   * says what failed in the end.
   */
  private static RaftServer started(RaftServer.Builder builder, StartupCheck check, RaftConfig config)
      throws IOException {
    RaftServer server = null;
    try {
      server = builder.build();
      server.start();
      return server;
    } catch (IOException | RuntimeException e) {
      closeQuietly(server);
      Throwable root = e;
      while (root.getCause() != null) {
        root = root.getCause();
      }
      String cause = root.getMessage() == null ? root.toString() : root.getMessage();
      throw new IOException(check.damagedLog().orElse(
          "Raft member " + config.nodeName() + " did not start in " + config.dataDir() + ": " + cause), e);
    }
  }

  // ---- Backend

  @Override
  public Resource read(Consistency consistency, ID id) {
    checkOpen();
    if (consistency == Consistency.STRONG) {
      catchUp();
    }
    return store.engine().read(id);
  }

  @Override
  public Resource writeCas(Resource resource, Fence fence) {
    return writeCas(resource, fence, "");
  }

  @Override
  public Resource writeCas(Resource resource, Fence fence, String requestId) {
    return written(resource, submit(write(resource, fence, requestId)));
  }

  @Override
  public CompletableFuture<Resource> writeCasAsync(Resource resource, Fence fence) {
    return writeCasAsync(resource, fence, "");
  }

  /** Completes on a thread of this backend's, never on one of Ratis's. */
  @Override
  public CompletableFuture<Resource> writeCasAsync(Resource resource, Fence fence, String requestId) {
    return submitAsync(write(resource, fence, requestId)).thenApply(outcome -> written(resource, outcome));
  }

  /** Decided by the state machine as it applies the entry; completes off Ratis's threads. */
  @Override
  public CompletableFuture<Resource> putAsync(
      Resource resource, Fence fence, String requestId, String uid, String generation) {
    Op op = fenced(Op.newBuilder()
        .setPut(Put.newBuilder().setResource(resource).setUid(uid).setGeneration(generation))
        .setRequestId(requestId), fence);
    return submitAsync(op).thenApply(outcome -> switch (outcome.getResultCase()) {
      case STORED -> outcome.getStored();
      case UNCHANGED -> outcome.getUnchanged();
      case REPEATED -> outcome.getRepeated();
      case FAILURE -> throw refused(outcome);
      default -> throw unexpected(outcome);
    });
  }

  /** Served from this member's applied state, which includes every write made through it. */
  @Override
  public Resource findRequest(ID id, String requestId) {
    checkOpen();
    return store.engine().findRequest(id, requestId);
  }

  private static Op write(Resource resource, Fence fence, String requestId) {
    return fenced(Op.newBuilder().setWrite(resource).setRequestId(requestId), fence);
  }

  /** The op, carrying the fence only when there is one (most writes have none: no bytes spent). */
  private static Op fenced(Op.Builder op, Fence fence) {
    return StoreEngine.fences(fence) ? op.setFence(fence).build() : op.build();
  }

  private static Resource written(Resource resource, Outcome outcome) {
    return switch (outcome.getResultCase()) {
      case WRITTEN -> Resources.withVersion(resource, Long.toString(outcome.getRevision()));
      case REPEATED -> outcome.getRepeated();
      case FAILURE -> throw refused(outcome);
      default -> throw unexpected(outcome);
    };
  }

  @Override
  public Resource deleteCas(ID id, String version, Fence fence, String requestId) {
    Outcome outcome = submit(fenced(Op.newBuilder().setDelete(Delete.newBuilder().setId(id).setVersion(version))
        .setRequestId(requestId), fence));
    return switch (outcome.getResultCase()) {
      case DELETED -> outcome.getDeleted();
      case NOTHING_DELETED, REPEATED -> null;
      case FAILURE -> throw refused(outcome);
      default -> throw unexpected(outcome);
    };
  }

  @Override
  public Page list(
      Consistency consistency, Type type, Tenancy tenancy, String namePrefix, int limit, String pageToken) {
    checkOpen();
    if (consistency == Consistency.STRONG) {
      catchUp();
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
        catchUp();
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
  private Health lookAtProgress() {
    try {
      return readiness.observe(RaftProgress.of(server.getDivision(RatisSettings.GROUP_ID)));
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  // ---- Replication

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

  /** True when this member is the Raft leader and has applied every entry of earlier terms. */
  @Override
  public boolean isLeader() {
    DivisionInfo info = info();
    return info != null && info.isLeader() && info.isLeaderReady();
  }

  /** The leader this member knows of, with its address; null while none is. */
  private RaftPeer leaderPeer() {
    DivisionInfo info = info();
    RaftPeerId leader = info == null ? null : info.getLeaderId();
    RaftConfiguration members = leader == null ? null : membership.conf();
    return members == null ? null : members.getPeer(leader);
  }

  /** The node name of the leader this member knows of, if any. */
  public Optional<String> leader() {
    DivisionInfo info = info();
    return info == null ? Optional.empty() : Optional.ofNullable(info.getLeaderId()).map(RaftPeerId::toString);
  }

  /**
   * Tells {@code listener} whether this member leads (true once it leads and has applied every
   * entry of earlier terms), now and on every change, one call at a time from one thread of the
   * backend, until the returned handle is closed or the backend closes (which tells it false). A
   * listener should return quickly.
   */
  @Override
  public AutoCloseable onLeadershipChange(Consumer<Boolean> listener) {
    return leadership.add(listener);
  }

  @Override
  public String transferLeadership(String to, Duration timeout) {
    checkOpen();
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
    checkReply(reply, "leadership transfer to " + target);
    // The old leader has stepped down for the target; wait until this member has heard of it.
    String leading = target;
    Membership.awaitHeard(() -> leader().equals(Optional.of(leading)), System.nanoTime() + timeout.toNanos(),
        "leadership did not reach " + target + " within " + timeout);
    return target;
  }

  @Override
  public List<Member> addMember(String name, String address, boolean lostItsData, Duration timeout) {
    checkOpen();
    membership.add(name, address, lostItsData, timeout);
    return members();
  }

  @Override
  public List<Member> removeMember(String name, Duration timeout) {
    checkOpen();
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

  /**
   * True while this member is in the cluster's membership as it knows it: false for a {@linkplain
   * RaftConfig#join() joining} member until it is added, and after it was removed.
   */
  public boolean isMember() {
    return membership.isMember();
  }

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
    writes.close();
    store.engine().close();
    forwards.close();
    if (viaClient != null) {
      viaClient.close();
    }
    LogWorkerWakeup.whenClosed(server, LOG_CLOSE_TIMEOUT);
    closeQuietly(server);
    // Only now: until the server has answered every write in flight, their deadlines still count.
    healthTimer.shutdownNow();
    awaitQuietly(healthTimer);
    replies.shutdown();
    leadership.close();
  }

  // ---- internals

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

  private Outcome submit(Op op) {
    try {
      return submitAsync(op).get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StorageException(Reason.UNAVAILABLE, "write interrupted");
    } catch (ExecutionException e) {
      throw failure("write", e.getCause());
    }
  }

  /**
   * Commits {@code op} through the batcher and completes with its outcome once this member has
   * applied it too, so a caller reads its own writes on the member it wrote through; or, within
   * the request timeout, with a {@link StorageException}.
   */
  private CompletableFuture<Outcome> submitAsync(Op op) {
    CompletableFuture<Outcome> committed;
    try {
      checkOpen();
      checkWritable();
      committed = writes.submit(op);
    } catch (StorageException e) {
      return CompletableFuture.failedFuture(e);
    }
    // The batcher bounds the wait by the request timeout.
    return committed.exceptionallyCompose(e -> CompletableFuture.failedFuture(inFlightFailure(e)));
  }

  /**
   * Why a write failed: when the log failed meanwhile, that (the write was in flight, so it may
   * still be committed by other members), rather than how Raft happened to answer it.
   */
  private StorageException inFlightFailure(Throwable error) {
    StorageException failure = failure("write", error);
    StorageException refusal = health.refusal();
    if (refusal == null || failure.getMessage().equals(refusal.getMessage())) {
      return failure;
    }
    return new StorageException(Reason.UNAVAILABLE, refusal.getMessage() + " (this write was in flight: it may still take effect)");
  }

  /** Fails fast while the log cannot take writes, with the reason. */
  private void checkWritable() {
    throwIfRefused(health.refusal());
  }

  private static void throwIfRefused(StorageException refusal) {
    if (refusal != null) {
      throw refusal;
    }
  }

  /** The log stopped taking writes: fail those queued, and stop acting as leader. */
  private void stopWrites(StorageException refusal) {
    writes.failQueued(refusal);
    leadership.accept(false);
  }

  /**
   * Completes with {@code reply} once this member has applied every write in it: at once on the
   * member that committed the entry, later on one that forwarded it. One wait per batch; the
   * writers are woken off the applier thread.
   */
  private CompletableFuture<BatchReply> appliedHere(BatchReply reply) {
    long last = 0;
    for (Outcome outcome : reply.getOutcomesList()) {
      last = Math.max(last, outcome.getRevision());
    }
    CompletableFuture<Void> reached = store.applied().reached(last);
    if (reached.isDone()) {
      return CompletableFuture.completedFuture(reply);
    }
    // On a member that forwarded the writes: it learns that they are committed from the leader's
    // next append, which the leader sends as it answers when no newer entry would bring the commit
    // index (ForwardedWrites, CommitPropagation).
    return reached.thenApplyAsync(done -> reply, replies);
  }

  /**
   * Waits until this member has applied everything committed before now. A round fails at once
   * while no leader is known (the member just started, an election runs), so like a write it is
   * tried again until the request timeout.
   */
  private void catchUp() {
    // Raft is down on this member until its log takes writes again: no leader to catch up with.
    throwIfRefused(health.refusal("cannot read consistently now"));
    long deadline = System.nanoTime() + timeout.toNanos();
    long pauseNanos = RETRY_PAUSE_MIN.toNanos();
    for (;;) {
      try {
        await(reads.await(), deadline, "strong read");
        return;
      } catch (StorageException e) {
        if (deadline - System.nanoTime() <= pauseNanos) {
          throw e;
        }
      }
      try {
        TimeUnit.NANOSECONDS.sleep(pauseNanos);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new StorageException(Reason.UNAVAILABLE, "strong read interrupted");
      }
      pauseNanos = Math.min(pauseNanos * 2, RETRY_PAUSE_MAX.toNanos());
    }
  }

  /**
   * Commits {@code batch}: as this member's own log entry while it leads, else by forwarding it to
   * the leader.
   */
  private CompletableFuture<BatchReply> replicate(Batch batch) {
    StorageException refusal = health.refusal();
    if (refusal != null) {
      return CompletableFuture.failedFuture(refusal);
    }
    CompletableFuture<BatchReply> own = ownEntryIfLeading(batch);
    if (own != null) {
      return own;
    }
    if (forwardViaClient) {
      return offRatis(viaClient.write(StoreStateMachine.message(batch))).thenApply(RaftBackend::batchReply);
    }
    return forwards.send(Forward.newBuilder().setFrom(config.nodeName()).setBatch(batch).build());
  }

  /** {@code batch} as this member's own log entry; {@code null} when it does not lead. */
  private CompletableFuture<BatchReply> ownEntryIfLeading(Batch batch) {
    CompletableFuture<RaftClientReply> submitted;
    if (submitViaClient) {
      submitted = isLeader() ? viaClient.write(StoreStateMachine.message(batch)) : null;
    } else {
      submitted = local.writeIfLeading(StoreStateMachine.message(batch));
    }
    // Answered off the Ratis thread that completes it (the one applying entries, on a leader): a
    // writer woken there may block, e.g. on the linearizable read after a lost race, which waits
    // for that very thread to apply the barrier, so every write stalled until its timeout.
    return submitted == null ? null : offRatis(submitted).thenApply(RaftBackend::batchReply);
  }

  /**
   * A batch this member's forward client found it leads itself: an entry of its own, or turned
   * away when it no longer leads (or does not lead yet).
   */
  private CompletableFuture<BatchReply> ownEntry(Batch batch) {
    CompletableFuture<BatchReply> own = ownEntryIfLeading(batch);
    return own != null
        ? own
        : CompletableFuture.failedFuture(new ForwardedWrites.TurnedAway("this member no longer leads"));
  }

  private static BatchReply batchReply(RaftClientReply reply) {
    // A leader's own entry is not retried when leadership moves, nor is a forwarded batch, and a
    // client's may have been committed before its retries ran out: the outcome is unknown.
    if (!reply.isSuccess()) {
      throw mayStillBeApplied(reply.getException());
    }
    try {
      return BatchReply.parseFrom(reply.getMessage().getContent().asReadOnlyByteBuffer());
    } catch (IOException e) {
      throw new IllegalStateException("unreadable reply from the leader", e);
    }
  }

  private static StorageException mayStillBeApplied(Exception cause) {
    return ForwardClient.mayStillBeApplied(String.valueOf(cause));
  }

  private CompletableFuture<Void> readIndex() {
    CompletableFuture<RaftClientReply> barrier =
        submitViaClient ? viaClient.readBarrier() : local.readBarrier();
    return offRatis(barrier).thenAccept(reply -> checkReply(reply, "strong read"));
  }

  /** {@code sent}, answered on {@link #replies} rather than on the Ratis thread that completes it. */
  private CompletableFuture<RaftClientReply> offRatis(CompletableFuture<RaftClientReply> sent) {
    return sent.whenCompleteAsync((reply, error) -> {}, replies);
  }

  private static void checkReply(RaftClientReply reply, String what) {
    if (!reply.isSuccess()) {
      throw new StorageException(
          Reason.UNAVAILABLE, what + " failed in Raft: " + reply.getException());
    }
  }

  private static <T> T await(Future<T> future, long deadline, String what) {
    try {
      return future.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      throw failure(what, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StorageException(Reason.UNAVAILABLE, what + " interrupted");
    } catch (ExecutionException e) {
      throw failure(what, e.getCause());
    }
  }

  private static StorageException failure(String what, Throwable cause) {
    while ((cause instanceof CompletionException || cause instanceof ExecutionException) && cause.getCause() != null) {
      cause = cause.getCause();
    }
    if (cause instanceof StorageException e) {
      return e;
    }
    if (cause instanceof TimeoutException) {
      return new StorageException(
          Reason.UNAVAILABLE, what + " timed out (no leader, or no quorum?); it may still take effect");
    }
    return new StorageException(Reason.UNAVAILABLE, what + " failed: " + cause);
  }

  private static RuntimeException refused(Outcome outcome) {
    String reason = outcome.getFailure().getReason();
    String message = outcome.getFailure().getMessage();
    for (Reason r : Reason.values()) {
      if (r.name().equals(reason)) {
        return new StorageException(r, message);
      }
    }
    return new IllegalStateException("applying failed (" + reason + "): " + message);
  }

  private static IllegalStateException unexpected(Outcome outcome) {
    return new IllegalStateException("unexpected outcome " + outcome.getResultCase());
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

  private static void closeQuietly(AutoCloseable closeable) {
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
