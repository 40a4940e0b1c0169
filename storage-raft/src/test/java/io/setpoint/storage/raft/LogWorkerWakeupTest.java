package io.setpoint.storage.raft;

import static io.setpoint.storage.conformance.Fixtures.id;
import static io.setpoint.storage.conformance.Fixtures.resource;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.setpoint.storage.engine.StoreEngine.Limits;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * Stopping a durable member wakes Ratis's log worker instead of leaving it to notice at the end of
 * its one-second wait for work: the worker reports that it was interrupted, after it was told to
 * stop and with nothing left to write. Ratis's log is the witness; how long a stop takes is
 * measured by {@code setpoint bench startup}.
 */
class LogWorkerWakeupTest {
  private static final String WORKER_LOG = "org.apache.ratis.server.raftlog.segmented.SegmentedRaftLogWorker";

  @Test
  void stoppingAMemberWakesItsLogWorkerWithNothingLeftToWrite() {
    Logger worker = (Logger) LoggerFactory.getLogger(WORKER_LOG);
    Level configured = worker.getLevel();
    ListAppender<ILoggingEvent> logged = new ListAppender<>();
    logged.start();
    worker.addAppender(logged);
    worker.setLevel(Level.INFO);
    try (TestCluster cluster = TestCluster.start(1, Limits.DEFAULT, TestCluster.FAST)) {
      RaftBackend member = cluster.awaitLeader();
      // A write just before the stop starts the worker's next one-second wait, so that the stop
      // comes well within it.
      member.writeCas(resource(id("r")));
      cluster.stopMember(member.nodeName());
    } finally {
      worker.detachAppender(logged);
      worker.setLevel(configured);
    }
    assertThat(logged.list).extracting(ILoggingEvent::getFormattedMessage)
        .anySatisfy(message -> assertThat(message).contains("was interrupted, exiting. There are 0 tasks remaining"))
        .noneSatisfy(message -> assertThat(message).contains("interrupted while still running"));
  }
}
