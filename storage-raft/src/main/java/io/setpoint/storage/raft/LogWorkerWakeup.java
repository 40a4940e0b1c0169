package io.setpoint.storage.raft;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.raftlog.RaftLogBase;

/**
 * Wakes Ratis's log worker as its log closes, so that a member stops without waiting for it. In
 * Ratis 3.3.0 the worker waits up to a second for its next task and only then sees that it should
 * stop, which was most of a durable node's stop (RATIS-2665 wakes it inside Ratis after 3.3.0;
 * this goes then). Once the log is closed the worker has nothing left to do: an interrupt ends its
 * wait, and it exits as it would have a moment later.
 */
final class LogWorkerWakeup {
  private static final Duration POLL = Duration.ofMillis(1);
  /** Lets the closing log tell its worker to stop before the interrupt, which it then takes quietly. */
  private static final Duration SETTLE = Duration.ofMillis(5);

  private LogWorkerWakeup() {}

  /**
   * Watches {@code server}'s log from a virtual thread, and wakes its worker once the log has
   * closed; gives up after {@code timeout}. Returns at once; call it just before closing the server.
   */
  static void whenClosed(RaftServer server, Duration timeout) {
    RaftServer.Division division;
    try {
      division = server.getDivision(RatisSettings.GROUP_ID);
    } catch (IOException e) {
      return; // no division: nothing to wake
    }
    if (!(division.getRaftLog() instanceof RaftLogBase log)) {
      return;
    }
    String worker = division.getMemberId() + "-SegmentedRaftLogWorker";
    long deadline = System.nanoTime() + timeout.toNanos();
    Thread.ofVirtual().name("setpoint-log-wakeup").start(() -> {
      while (log.isOpened()) {
        if (System.nanoTime() - deadline > 0) {
          return;
        }
        LockSupport.parkNanos(POLL.toNanos());
      }
      LockSupport.parkNanos(SETTLE.toNanos());
      Thread.getAllStackTraces().keySet().stream()
          .filter(thread -> thread.getName().equals(worker))
          .forEach(Thread::interrupt);
    });
  }
}
