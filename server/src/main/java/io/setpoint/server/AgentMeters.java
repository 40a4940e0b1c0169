package io.setpoint.server;

import com.linecorp.armeria.common.grpc.GrpcMeterIdPrefixFunction;
import com.linecorp.armeria.server.ServerBuilder;
import com.linecorp.armeria.server.metric.MetricCollectingService;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.distribution.DistributionStatisticConfig;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.setpoint.storage.Replication;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.stream.DoubleStream;

/**
 * The agent's registry, served at {@code /metrics}: the JVM's meters (memory, GC, threads, classes,
 * CPU, uptime), and every request by service, method and status ({@code setpoint_server_requests_total},
 * {@code setpoint_server_request_duration_seconds}, with {@code grpc_status} on gRPC calls); the
 * store, the controllers and the connection limits add theirs.
 */
final class AgentMeters {
  private static final String REQUESTS = "setpoint.server";
  /** Request latency buckets, in nanoseconds: Prometheus's default ones, from half a millisecond. */
  private static final double[] REQUEST_BUCKETS = DoubleStream.of(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1,
      0.25, 0.5, 1, 2.5, 5, 10).map(seconds -> seconds * 1e9).toArray();

  private AgentMeters() {}

  /** A registry with the JVM's meters bound; the GC meters' listeners go with {@code opened}. */
  static PrometheusMeterRegistry create(Closer opened) {
    PrometheusMeterRegistry meters = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    meters.config().meterFilter(new MeterFilter() {
      @Override
      public DistributionStatisticConfig configure(Meter.Id id, DistributionStatisticConfig config) {
        if (id.getType() != Meter.Type.TIMER || !id.getName().startsWith(REQUESTS + ".")) {
          return config;
        }
        // Buckets a query can sum across members, instead of Armeria's per-process quantiles.
        return DistributionStatisticConfig.builder().percentiles(new double[0]).percentilesHistogram(false)
            .serviceLevelObjectives(REQUEST_BUCKETS).build().merge(config);
      }
    });
    new JvmMemoryMetrics().bindTo(meters);
    opened.add(new JvmGcMetrics()).bindTo(meters);
    new JvmThreadMetrics().bindTo(meters);
    new ClassLoaderMetrics().bindTo(meters);
    new ProcessorMetrics().bindTo(meters);
    new UptimeMetrics().bindTo(meters);
    return meters;
  }

  /**
   * This member's Raft: {@code setpoint_raft_term}, {@code _commit_index}, {@code _applied_index},
   * {@code _apply_lag} (entries committed, not yet applied here), {@code _leader} (1 on the leader),
   * {@code setpoint_raft_leader_changes_total}, {@code setpoint_raft_snapshot_seconds} (count
   * and total time of the snapshots taken), {@code setpoint_raft_log_syncs_total} and {@code
   * setpoint_raft_log_sync_seconds{statistic}} (median, 99th percentile and longest of the recent
   * syncs of the log to disk, as Ratis times them).
   */
  static void raft(MeterRegistry meters, Replication raft) {
    Gauge.builder("setpoint.raft.term", raft, r -> r.status().term()).register(meters);
    Gauge.builder("setpoint.raft.commit.index", raft, r -> r.status().commitIndex()).register(meters);
    Gauge.builder("setpoint.raft.applied.index", raft, r -> r.status().appliedIndex()).register(meters);
    Gauge.builder("setpoint.raft.apply.lag", raft, r -> {
      Replication.RaftStatus s = r.status();
      return Math.max(0, s.commitIndex() - s.appliedIndex());
    }).register(meters);
    Gauge.builder("setpoint.raft.leader", raft, r -> r.isLeader() ? 1 : 0).register(meters);
    FunctionCounter.builder("setpoint.raft.leader.changes", raft, r -> r.status().leaderChanges()).register(meters);
    FunctionTimer.builder("setpoint.raft.snapshot", raft, r -> r.status().snapshots(),
        r -> r.status().snapshotTime().toNanos(), TimeUnit.NANOSECONDS).register(meters);
    FunctionCounter.builder("setpoint.raft.log.syncs", raft, r -> r.status().logSync().count()).register(meters);
    Gauge.builder("setpoint.raft.log.sync.seconds", raft, r -> seconds(r.status().logSync().median()))
        .tag("statistic", "median").register(meters);
    Gauge.builder("setpoint.raft.log.sync.seconds", raft, r -> seconds(r.status().logSync().p99()))
        .tag("statistic", "p99").register(meters);
    Gauge.builder("setpoint.raft.log.sync.seconds", raft, r -> seconds(r.status().logSync().max()))
        .tag("statistic", "max").register(meters);
  }

  private static double seconds(Duration d) {
    return d.toNanos() / 1e9;
  }

  /** Counts and times every request the server answers, gRPC and HTTP alike. */
  static void requests(ServerBuilder server, PrometheusMeterRegistry meters) {
    server.meterRegistry(meters)
        .decorator(MetricCollectingService.newDecorator(GrpcMeterIdPrefixFunction.of(REQUESTS)));
  }
}
