package io.setpoint.storage.raft;

import io.setpoint.storage.Health;
import io.setpoint.storage.StorageException;
import io.setpoint.storage.StorageException.Reason;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.GroupManagementRequest;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.util.LifeCycle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether this member's Raft division works, and its way back when its log could not be written.
 *
 * <p>Ratis's log worker keeps the first I/O error it meets (a full disk, say) and fails every later
 * append with it, for good, while the entries already handed to it are never answered; freeing
 * space does not help. Only a new division, which reopens the log from the data directory, writes
 * again. So when the log reports a failure this member refuses writes at once, with the reason,
 * and takes its division down: that answers the writes in flight, and in a cluster lets the other
 * members elect a leader instead of waiting on this one. Every {@code probeEvery} it then tries a
 * small synced write in the data directory, and once that succeeds with room for the log to grow,
 * starts the division again; the division resumes where the store stopped (see {@link
 * StoreStateMachine}). Doing this in-process, rather than asking an operator to restart the agent,
 * keeps reads and watches served from the store throughout.
 *
 * <p>Anything else that stops the division (the state machine updater died, say of {@link
 * OutOfMemoryError}) is fatal: applying may have stopped half-way through an entry, so the store
 * cannot be trusted to resume, and the member stays failing until the agent is restarted, rather
 * than look ready while every write fails.
 */
final class MemberHealth implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(MemberHealth.class);
  private static final String PROBE_FILE = ".setpoint-write-probe";
  private static final int PROBE_BYTES = 4096;

  private final Path dataDir;
  private final long resumeFreeBytes;
  private final Duration probeEvery;
  private final ScheduledExecutorService timer;
  private final ClientId clientId = ClientId.randomId();
  private final AtomicLong callIds = new AtomicLong();
  /** Log failures reported so far, so a restart knows whether the new division failed too. */
  private final AtomicLong logFailures = new AtomicLong();
  private volatile Attached attached;
  private volatile ScheduledFuture<?> ticks;
  private volatile Health health = Health.OK;
  /** True from a log failure until the division runs again; only the timer thread clears it. */
  private volatile boolean resuming;
  private volatile boolean fatal;
  private volatile boolean closed;

  private record Attached(
      RaftServer server, RaftGroup group, RaftPeerId self, Consumer<StorageException> onFailure) {}

  /**
   * @param dataDir the member's data directory, probed for writes and named in reasons
   * @param resumeFreeBytes how much space the data directory's disk must have free before the
   *     division starts again (enough for the log to grow by a segment's preallocation)
   * @param probeEvery how often to check the division and, after a log failure, probe the disk
   * @param timer runs the checks and the restart; never a Ratis thread, since taking a division
   *     down waits for Ratis's threads to end
   */
  MemberHealth(Path dataDir, long resumeFreeBytes, Duration probeEvery, ScheduledExecutorService timer) {
    this.dataDir = dataDir;
    this.resumeFreeBytes = resumeFreeBytes;
    this.probeEvery = probeEvery;
    this.timer = timer;
  }

  /**
   * Starts watching {@code server}'s division of {@code group}. {@code onFailure} is told the
   * refusal when writes stop, to fail the writes queued meanwhile.
   */
  void attach(RaftServer server, RaftGroup group, RaftPeerId self, Consumer<StorageException> onFailure) {
    attached = new Attached(server, group, self, onFailure);
    ticks = timer.scheduleWithFixedDelay(this::tick, probeEvery.toMillis(), probeEvery.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** The current health; a division found stopped is reported fatal here, without waiting for the timer. */
  Health health() {
    if (health.ok() && !closed && attached != null && !resuming && !divisionRunning()) {
      stoppedUnexpectedly();
    }
    return health;
  }

  /** Why writes are refused now, or null when they are not. */
  StorageException refusal() {
    return refusal("cannot write now");
  }

  /** Why {@code what} is refused now, or null when it is not: {@code "<what>: <reason>"}. */
  StorageException refusal(String what) {
    Health now = health;
    return now.ok() ? null : new StorageException(Reason.UNAVAILABLE, what + ": " + now.reason());
  }

  /**
   * Ratis's log could not write (called on its log worker, once per failed task): refuse writes
   * and take the division down, then probe the disk until it takes writes again.
   */
  void logFailed(Throwable cause) {
    logFailures.incrementAndGet();
    if (closed || fatal || resuming) {
      return;
    }
    synchronized (this) {
      if (closed || fatal || resuming) {
        return;
      }
      resuming = true;
      health = Health.failing(describe(cause));
    }
    log.error("{}", health.reason(), cause);
    failWrites();
    try {
      timer.execute(this::stopDivision);
    } catch (RejectedExecutionException e) {
      // The member is closing: nothing to stop or resume.
    }
  }

  /** Applying a log entry failed beyond recovery (an {@link Error} in the state machine). */
  void fatal(Throwable cause) {
    fail("Raft stopped on this member: applying the log failed with " + cause
        + "; its state may be incomplete, so restart the agent (acknowledged writes are in the log). "
        + "Reads are served from what it applied before");
  }

  @Override
  public void close() {
    closed = true;
    ScheduledFuture<?> scheduled = ticks;
    if (scheduled != null) {
      scheduled.cancel(false);
    }
  }

  // ---- internals

  private void stoppedUnexpectedly() {
    fail("Raft stopped on this member (its division is " + divisionState()
        + "); restart the agent. Reads are served from what it applied before");
  }

  private void fail(String reason) {
    synchronized (this) {
      if (closed || fatal) {
        return;
      }
      fatal = true;
      resuming = false;
      health = Health.failing(reason);
    }
    log.error("{}", reason);
    failWrites();
  }

  private void failWrites() {
    Attached a = attached;
    StorageException refusal = refusal();
    if (a != null && refusal != null) {
      a.onFailure().accept(refusal);
    }
  }

  private void tick() {
    try {
      if (closed || fatal || attached == null) {
        return;
      }
      if (resuming) {
        tryToResume();
      } else if (!divisionRunning()) {
        stoppedUnexpectedly();
      }
    } catch (RuntimeException e) {
      log.warn("checking the Raft division failed", e);
    }
  }

  private void tryToResume() {
    String problem = probe();
    if (problem != null) {
      log.debug("the data directory {} does not take writes yet: {}", dataDir, problem);
      return;
    }
    Attached a = attached;
    long failuresBefore = logFailures.get();
    try {
      stopDivision();
      RaftClientReply reply =
          a.server().groupManagement(GroupManagementRequest.newAdd(clientId, a.self(), callIds.incrementAndGet(), a.group(), false));
      if (!reply.isSuccess()) {
        throw new IOException("restarting the Raft division failed", reply.getException());
      }
    } catch (IOException | RuntimeException e) {
      log.warn("the data directory {} takes writes again, but restarting Raft failed; trying again in {}", dataDir, probeEvery, e);
      return;
    }
    synchronized (this) {
      if (fatal || closed) {
        return;
      }
      if (logFailures.get() != failuresBefore) {
        // The new division's log failed while it started, and that report found us resuming.
        log.warn("the Raft log in {} failed again as Raft restarted; trying again in {}", dataDir, probeEvery);
        return;
      }
      resuming = false;
      health = Health.OK;
    }
    log.info("the data directory {} takes writes again: Raft restarted, and this member takes writes", dataDir);
  }

  /** Takes the division down, keeping its data directory; does nothing when it is not there. */
  private void stopDivision() {
    Attached a = attached;
    if (a == null || closed) {
      return;
    }
    try {
      a.server().getDivision(RatisSettings.GROUP_ID);
    } catch (IOException e) {
      return;
    }
    try {
      RaftClientReply reply = a.server().groupManagement(GroupManagementRequest.newRemove(
          clientId, a.self(), callIds.incrementAndGet(), RatisSettings.GROUP_ID, false, false));
      if (!reply.isSuccess()) {
        log.warn("taking the failed Raft division down failed", reply.getException());
      }
    } catch (IOException | RuntimeException e) {
      log.warn("taking the failed Raft division down failed", e);
    }
  }

  private boolean divisionRunning() {
    LifeCycle.State state = divisionState();
    return state != null && !state.isClosingOrClosed() && state != LifeCycle.State.EXCEPTION;
  }

  private LifeCycle.State divisionState() {
    try {
      return attached.server().getDivision(RatisSettings.GROUP_ID).getInfo().getLifeCycleState();
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  private String describe(Throwable cause) {
    if (diskFull(cause)) {
      return "the disk holding the data directory " + dataDir + " is full (" + rootMessage(cause)
          + "); this member takes no writes until space is freed there, then resumes by itself";
    }
    return "writing the Raft log in " + dataDir + " failed (" + rootMessage(cause)
        + "); this member takes no writes until a test write there succeeds, then resumes by itself";
  }

  private boolean diskFull(Throwable cause) {
    for (Throwable t = cause; t != null; t = t.getCause()) {
      if (t.getMessage() != null && t.getMessage().contains("No space left on device")) {
        return true;
      }
    }
    try {
      return Files.getFileStore(dataDir).getUsableSpace() < resumeFreeBytes;
    } catch (IOException e) {
      return false;
    }
  }

  /**
   * Null when the data directory takes a small synced write and its disk has room for the log to
   * grow; else what is wrong.
   */
  private String probe() {
    Path file = dataDir.resolve(PROBE_FILE);
    try {
      long free = Files.getFileStore(dataDir).getUsableSpace();
      if (free < resumeFreeBytes) {
        return free + " bytes free, " + resumeFreeBytes + " needed";
      }
      try (FileChannel channel = FileChannel.open(
          file, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
        ByteBuffer zeros = ByteBuffer.allocate(PROBE_BYTES);
        while (zeros.hasRemaining()) {
          channel.write(zeros);
        }
        channel.force(true);
      }
      return null;
    } catch (IOException e) {
      return e.toString();
    } finally {
      try {
        Files.deleteIfExists(file);
      } catch (IOException e) {
        log.debug("cannot delete {}", file, e);
      }
    }
  }

  private static String rootMessage(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return root.getMessage() != null ? root.getMessage() : root.toString();
  }
}
