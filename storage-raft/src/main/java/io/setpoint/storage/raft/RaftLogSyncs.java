package io.setpoint.storage.raft;

import io.setpoint.storage.Replication.LogSync;
import java.time.Duration;
import org.apache.ratis.metrics.RatisMetrics;
import org.apache.ratis.metrics.impl.RatisMetricRegistryImpl;
import org.apache.ratis.server.metrics.SegmentedRaftLogMetrics;
import org.apache.ratis.server.raftlog.RaftLog;
import org.apache.ratis.thirdparty.com.codahale.metrics.Metric;
import org.apache.ratis.thirdparty.com.codahale.metrics.Snapshot;
import org.apache.ratis.thirdparty.com.codahale.metrics.Timer;

/**
 * Reads how long the Raft log takes to reach the disk from Ratis's own timer around each sync of
 * the log's output stream. Ratis keeps it in its metrics registry, not in its API, so this reads
 * the registry of its default metrics implementation (the one the agent ships).
 */
final class RaftLogSyncs {
  private RaftLogSyncs() {}

  /** The log's syncs so far; {@link LogSync#NONE} for a log, or metrics implementation, that keeps none. */
  static LogSync of(RaftLog log) {
    if (!(log.getRaftLogMetrics() instanceof RatisMetrics metrics)
        || !(metrics.getRegistry() instanceof RatisMetricRegistryImpl registry)) {
      return LogSync.NONE;
    }
    Metric metric = registry.get(SegmentedRaftLogMetrics.RAFT_LOG_SYNC_TIME);
    if (!(metric instanceof Timer timer) || timer.getCount() == 0) {
      return LogSync.NONE;
    }
    Snapshot recent = timer.getSnapshot(); // in nanoseconds
    return new LogSync(timer.getCount(), Duration.ofNanos((long) recent.getMedian()),
        Duration.ofNanos((long) recent.get99thPercentile()), Duration.ofNanos(recent.getMax()));
  }
}
