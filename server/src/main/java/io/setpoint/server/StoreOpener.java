package io.setpoint.server;

import io.setpoint.server.Agent.Joiner;
import io.setpoint.storage.Backend;
import io.setpoint.storage.engine.StoreEngine.Limits;
import io.setpoint.storage.memory.MemoryBackend;
import io.setpoint.storage.raft.RaftBackend;
import io.setpoint.storage.raft.RaftConfig;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens the store an agent was not given: a Raft member, which first asks to join its cluster when
 * it is in none yet, or else a store in memory.
 */
final class StoreOpener {
  /** The agent's log, whose name operators configure and read. */
  private static final Logger log = LoggerFactory.getLogger(Agent.class);
  /** How long a member the cluster added may take to hear so from the leader. */
  private static final Duration JOIN_HEARD = Duration.ofSeconds(30);
  private static final Duration JOIN_POLL = Duration.ofMillis(20);

  private StoreOpener() {}

  /**
   * Raft when {@code raft} is given, else memory bounded by {@code memoryLimits}.
   *
   * @param joiner how a joining member asks to be added, or null
   */
  static Backend open(RaftConfig raft, Joiner joiner, Limits memoryLimits) {
    if (raft == null) {
      return new MemoryBackend(memoryLimits);
    }
    try {
      RaftBackend member = RaftBackend.start(raft);
      if (raft.join() && !member.isMember()) {
        join(raft, joiner, member);
      }
      return member;
    } catch (UncheckedIOException e) {
      throw e; // the store's own message names the directory, the damaged file and what to do
    } catch (RuntimeException e) {
      throw new IllegalStateException("cannot open the store in " + raft.dataDir() + ": " + e.getMessage(), e);
    }
  }

  /** Asks to be added, then waits until {@code member} has heard so from the leader; closes it on failure. */
  private static void join(RaftConfig raft, Joiner joiner, RaftBackend member) {
    String address = raft.peers().get(raft.nodeName());
    try {
      if (joiner == null) {
        throw new IllegalStateException("a joining Raft member needs a Joiner: Agent.Builder.raft(config, joiner)");
      }
      log.info("member {} at {} is in no cluster yet: asking to be added", raft.nodeName(), address);
      joiner.requestAdd(raft.nodeName(), address);
      long deadline = System.nanoTime() + JOIN_HEARD.toNanos();
      while (!member.isMember()) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("the cluster added member " + raft.nodeName() + ", but it has not heard from"
              + " the leader within " + JOIN_HEARD.toSeconds() + " s: can the members reach " + address + "?");
        }
        LockSupport.parkNanos(JOIN_POLL.toNanos());
      }
      log.info("member {} joined the cluster", raft.nodeName());
    } catch (RuntimeException e) {
      member.close();
      throw e;
    }
  }
}
