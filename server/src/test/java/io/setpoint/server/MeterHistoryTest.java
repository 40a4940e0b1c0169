package io.setpoint.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Tags;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.setpoint.controller.time.ManualTicker;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The charts' ring of samples, driven by a manual ticker: each jump of one interval takes one
 * sample of the differences since the last, rates per second of ticker time, and the ring keeps
 * the last 180.
 */
class MeterHistoryTest {
  private static final Duration INTERVAL = Duration.ofSeconds(5);

  private final PrometheusMeterRegistry meters = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final ManualTicker ticker = new ManualTicker();
  private final WriteMeter writes = new WriteMeter(meters);
  private final Counter watchEvents = Counter.builder("setpoint.watch.events").register(meters);
  private final Counter reconciled = Counter.builder("controller.runtime.reconcile").tags("controller", "a")
      .tag("result", "success").register(meters);
  private final Counter reconcileErrors = Counter.builder("controller.runtime.reconcile.errors").tag("controller", "a")
      .register(meters);
  private final AtomicInteger depthA = meters.gauge("workqueue.depth", Tags.of("name", "a"), new AtomicInteger());
  private final AtomicInteger depthB = meters.gauge("workqueue.depth", Tags.of("name", "b"), new AtomicInteger());

  @Test
  void eachIntervalOfTickerTimeTakesASampleOfTheRatesSinceTheLast() {
    try (MeterHistory history = new MeterHistory(meters, ticker, ticker.clock(), INTERVAL).start()) {
      for (int i = 0; i < 10; i++) {
        writes.time(() -> "ok");
      }
      try {
        writes.time(() -> {
          throw new IllegalStateException("refused");
        });
      } catch (IllegalStateException expected) {
        // counted as an error
      }
      watchEvents.increment(25);
      reconciled.increment(5);
      reconcileErrors.increment(4);
      depthA.set(3);
      depthB.set(4);
      advanceAndAwait(history, 1);

      MeterHistory.Sample first = history.samples().get(0);
      assertThat(first.writes()).isEqualTo(11);
      assertThat(first.writesPerSecond()).isEqualTo(11 / 5.0);
      assertThat(first.watchEventsPerSecond()).isEqualTo(5.0);
      assertThat(first.reconcilesPerSecond()).isEqualTo(1.0);
      assertThat(first.errorsPerSecond()).isEqualTo((1 + 4) / 5.0);
      assertThat(first.queueDepth()).isEqualTo(7.0);
      // Writes in-process take far less than the first bucket's bound, half a millisecond.
      assertThat(first.writeP50Ms()).isBetween(0.0, 0.5);
      assertThat(first.writeP99Ms()).isBetween(first.writeP50Ms(), 0.5);
      assertThat(first.time()).isEqualTo(ticker.clock().instant());

      // Nothing happened in the next interval: zero rates, no latency (no writes to measure).
      advanceAndAwait(history, 2);
      MeterHistory.Sample quiet = history.samples().get(1);
      assertThat(quiet.writes()).isZero();
      assertThat(quiet.writesPerSecond()).isZero();
      assertThat(quiet.watchEventsPerSecond()).isZero();
      assertThat(Double.isNaN(quiet.writeP50Ms())).isTrue();
      assertThat(history.json().at("/samples/1/writeLatencyP50Ms").isNull()).isTrue();
      assertThat(history.json().at("/samples/0/writes").asLong()).isEqualTo(11);
      assertThat(history.json().get("intervalSeconds").asDouble()).isEqualTo(5.0);
    }
  }

  @Test
  void theRingKeepsTheLast180Samples() {
    // Sampled directly, each after one interval of ticker time: the ring, not the sampler thread.
    try (MeterHistory history = new MeterHistory(meters, ticker, ticker.clock(), INTERVAL)) {
      for (int i = 1; i <= 200; i++) {
        watchEvents.increment(i * 5);
        ticker.advance(INTERVAL);
        history.sample();
        assertThat(history.samples()).hasSize(Math.min(i, MeterHistory.SAMPLES));
        assertThat(last(history.samples()).watchEventsPerSecond()).isEqualTo(i);
      }
      List<MeterHistory.Sample> samples = history.samples();
      assertThat(samples.get(0).watchEventsPerSecond()).isEqualTo(21.0); // 200 - 180 + 1
      assertThat(history.json().get("samples")).hasSize(MeterHistory.SAMPLES);
    }
  }

  private static MeterHistory.Sample last(List<MeterHistory.Sample> samples) {
    return samples.get(samples.size() - 1);
  }

  /** Jumps one interval and waits for the sampler to have taken sample number {@code count}. */
  private void advanceAndAwait(MeterHistory history, int count) {
    ticker.advance(INTERVAL);
    await().atMost(Duration.ofSeconds(5)).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(5))
        .until(() -> history.samples().size() >= count);
  }

  @Test
  void quantilesInterpolateWithinTheirBucket() {
    double[] bounds = {1, 2, 4};
    double[] cumulative = {0, 50, 100};
    assertThat(MeterHistory.quantile(bounds, cumulative, 100, 0.5)).isEqualTo(2.0);
    assertThat(MeterHistory.quantile(bounds, cumulative, 100, 0.25)).isEqualTo(1.5);
    assertThat(MeterHistory.quantile(bounds, cumulative, 100, 0.99)).isEqualTo(2 + 2 * 0.98);
    assertThat(MeterHistory.quantile(bounds, new double[] {0, 0, 10}, 20, 0.99)).isEqualTo(4.0); // past the last bound
    assertThat(MeterHistory.quantile(bounds, cumulative, 0, 0.5)).isNaN();
  }
}
