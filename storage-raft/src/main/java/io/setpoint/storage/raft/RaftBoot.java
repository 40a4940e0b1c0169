package io.setpoint.storage.raft;

import io.setpoint.storage.raft.v1.Batch;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.storage.RaftStorage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts a member: checks its data directory, starts its Ratis server and group with the state
 * machine over a new store, and wires the backend to the forward service, the member's health
 * checks and the readiness looks. On any failure what was started is stopped again.
 */
final class RaftBoot {
  /** The backend's: a member's start is logged as the backend's doing. */
  private static final Logger log = LoggerFactory.getLogger(RaftBackend.class);
  /** How often the Raft division is checked and, after its log failed, the data directory probed. */
  private static final Duration HEALTH_EVERY = Duration.ofSeconds(1);
  /** How often the division's progress is looked at for the backend's health between questions. */
  private static final Duration READINESS_EVERY = Duration.ofMillis(100);

  private RaftBoot() {}

  /** See {@link RaftBackend#start(RaftConfig, Consumer, Set)}. */
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
      forwarded.open(backend.batcher(), backend::isLeader);
      health.attach(server, group, RatisSettings.peerId(config.nodeName()), backend::stopWrites);
      // Looks between questions too, so a stall is timed from when it began, not from the next probe.
      healthTimer.scheduleWithFixedDelay(
          () -> backend.lookAtProgress(), READINESS_EVERY.toMillis(), READINESS_EVERY.toMillis(), TimeUnit.MILLISECONDS);
      return backend;
    } catch (IOException | RuntimeException e) {
      RaftBackend.closeQuietly(server);
      replies.shutdown();
      healthTimer.shutdownNow();
      leadership.close();
      throw e instanceof IOException io ? new UncheckedIOException(io.getMessage(), io) : (RuntimeException) e;
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
      RaftBackend.closeQuietly(server);
      Throwable root = e;
      while (root.getCause() != null) {
        root = root.getCause();
      }
      String cause = root.getMessage() == null ? root.toString() : root.getMessage();
      throw new IOException(check.damagedLog().orElse(
          "Raft member " + config.nodeName() + " did not start in " + config.dataDir() + ": " + cause), e);
    }
  }
}
