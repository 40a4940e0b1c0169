package io.setpoint.server.agent;

import com.linecorp.armeria.common.grpc.GrpcMeterIdPrefixFunction;
import com.linecorp.armeria.server.ServerBuilder;
import com.linecorp.armeria.server.metric.MetricCollectingService;
import io.micrometer.core.instrument.Meter;
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

/**
 * The agent's registry, served at {@code /metrics}: the JVM's meters (memory, GC, threads, classes,
 * CPU, uptime), and every request by service, method and status ({@code setpoint_server_requests_total},
 * {@code setpoint_server_request_duration_seconds}, with {@code grpc_status} on gRPC calls); the
 * store, the controllers and the connection limits add theirs.
 */
final class AgentMeters {
  private static final String REQUESTS = "setpoint.server";
  /** Request latency buckets, in seconds: Prometheus's default ones, from half a millisecond. */
  private static final double[] REQUEST_BUCKETS = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1,
      2.5, 5, 10};

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
        double[] nanos = new double[REQUEST_BUCKETS.length];
        for (int i = 0; i < nanos.length; i++) {
          nanos[i] = REQUEST_BUCKETS[i] * 1e9;
        }
        return DistributionStatisticConfig.builder().percentiles(new double[0]).percentilesHistogram(false)
            .serviceLevelObjectives(nanos).build().merge(config);
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

  /** Counts and times every request the server answers, gRPC and HTTP alike. */
  static void requests(ServerBuilder server, PrometheusMeterRegistry meters) {
    server.meterRegistry(meters)
        .decorator(MetricCollectingService.newDecorator(GrpcMeterIdPrefixFunction.of(REQUESTS)));
  }
}
