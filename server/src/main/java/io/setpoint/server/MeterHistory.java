package io.setpoint.server;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.distribution.CountAtBucket;
import io.setpoint.controller.time.Ticker;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The last {@value #SAMPLES} samples of the agent's own meters, one every interval (5 s by
 * default: 15 minutes), for the UI's charts: writes per second and their latency (median and 99th
 * percentile, read from the buckets of the writes of that interval), watch events, reconciles and
 * errors per second, and the controllers' work queues' depth. A thread of its own samples on the
 * agent's {@link Ticker}, so a test with a manual ticker takes samples by advancing it.
 */
final class MeterHistory implements AutoCloseable {
  static final int SAMPLES = 180;
  private static final Logger log = LoggerFactory.getLogger(MeterHistory.class);

  /**
   * One interval's figures: rates per second over the interval, the writes' latency quantiles in
   * milliseconds (NaN when there were none), the queue depth at its end.
   */
  record Sample(Instant time, long writes, double writesPerSecond, double writeP50Ms, double writeP99Ms,
      double watchEventsPerSecond, double reconcilesPerSecond, double queueDepth, double errorsPerSecond) {}

  /** The cumulative counts read at one tick, to take the next sample's differences from. */
  private record Reading(long tick, long writes, double[] writeBuckets, double[] bucketBounds, double watchEvents,
      double reconciles, double errors) {}

  private final MeterRegistry meters;
  private final Ticker ticker;
  private final Clock clock;
  private final Duration interval;
  private final ArrayDeque<Sample> samples = new ArrayDeque<>();
  private Reading last;
  private Thread sampler;

  MeterHistory(MeterRegistry meters, Ticker ticker, Clock clock, Duration interval) {
    if (interval.isNegative() || interval.isZero()) {
      throw new IllegalArgumentException("the sample interval must be positive, was " + interval);
    }
    this.meters = meters;
    this.ticker = ticker;
    this.clock = clock;
    this.interval = interval;
    this.last = read();
  }

  /** Starts sampling every interval, on a thread of its own, until {@link #close()}. */
  MeterHistory start() {
    // The first deadline is read here, not on the new thread, so that no jump is missed before it runs.
    long first = ticker.read() + interval.toNanos();
    sampler = Thread.ofVirtual().name("setpoint-meter-history").start(() -> {
      long next = first;
      try {
        while (!Thread.currentThread().isInterrupted()) {
          ticker.sleepUntil(next);
          sample();
          next += interval.toNanos();
        }
      } catch (InterruptedException e) {
        // Closed.
      } catch (RuntimeException e) {
        log.warn("meter history stopped sampling", e);
      }
    });
    return this;
  }

  @Override
  public void close() {
    if (sampler != null) {
      sampler.interrupt();
    }
  }

  Duration interval() {
    return interval;
  }

  /** Takes a sample now: the differences since the last one. */
  synchronized void sample() {
    Reading now = read();
    double seconds = Math.max(1e-9, (now.tick() - last.tick()) / 1e9);
    long writes = now.writes() - last.writes();
    double[] inInterval = new double[now.writeBuckets().length];
    for (int i = 0; i < inInterval.length; i++) {
      inInterval[i] = now.writeBuckets()[i] - (i < last.writeBuckets().length ? last.writeBuckets()[i] : 0);
    }
    samples.addLast(new Sample(clock.instant(), writes, writes / seconds,
        quantile(now.bucketBounds(), inInterval, writes, 0.5), quantile(now.bucketBounds(), inInterval, writes, 0.99),
        (now.watchEvents() - last.watchEvents()) / seconds, (now.reconciles() - last.reconciles()) / seconds,
        gaugeSum("workqueue.depth"), (now.errors() - last.errors()) / seconds));
    while (samples.size() > SAMPLES) {
      samples.removeFirst();
    }
    last = now;
  }

  /** The samples held, oldest first. */
  synchronized List<Sample> samples() {
    return new ArrayList<>(samples);
  }

  /** The samples as the UI reads them ({@code GET /api/operator/metrics}). */
  ObjectNode json() {
    ObjectNode out = Json.object();
    out.put("intervalSeconds", interval.toMillis() / 1000.0).put("window", SAMPLES);
    ArrayNode list = out.putArray("samples");
    for (Sample s : samples()) {
      ObjectNode node = list.addObject().put("time", s.time().toString()).put("writes", s.writes())
          .put("writesPerSecond", s.writesPerSecond());
      putNumber(node, "writeLatencyP50Ms", s.writeP50Ms());
      putNumber(node, "writeLatencyP99Ms", s.writeP99Ms());
      node.put("watchEventsPerSecond", s.watchEventsPerSecond()).put("reconcilesPerSecond", s.reconcilesPerSecond())
          .put("queueDepth", s.queueDepth()).put("errorsPerSecond", s.errorsPerSecond());
    }
    return out;
  }

  private static void putNumber(ObjectNode node, String field, double value) {
    if (Double.isNaN(value)) {
      node.putNull(field);
    } else {
      node.put(field, value);
    }
  }

  private Reading read() {
    long tick = ticker.read();
    Timer writes = meters.find(WriteMeter.WRITES).timer();
    long count = 0;
    double[] buckets = new double[0];
    double[] bounds = new double[0];
    if (writes != null) {
      count = writes.count();
      CountAtBucket[] histogram = writes.takeSnapshot().histogramCounts();
      buckets = new double[histogram.length];
      bounds = new double[histogram.length];
      for (int i = 0; i < histogram.length; i++) {
        buckets[i] = histogram[i].count();
        bounds[i] = histogram[i].bucket(TimeUnit.MILLISECONDS);
      }
    }
    double watchEvents = counterSum("setpoint.watch.events");
    double reconciles = counterSum("controller.runtime.reconcile");
    double errors = counterSum(WriteMeter.ERRORS) + counterSum("controller.runtime.reconcile.errors");
    return new Reading(tick, count, buckets, bounds, watchEvents, reconciles, errors);
  }

  private double counterSum(String name) {
    return meters.find(name).counters().stream().mapToDouble(Counter::count).sum();
  }

  private double gaugeSum(String name) {
    return meters.find(name).gauges().stream().mapToDouble(Gauge::value).filter(v -> !Double.isNaN(v)).sum();
  }

  /**
   * The {@code q} quantile of {@code total} observations whose cumulative counts per bucket are
   * {@code cumulative} (upper bounds {@code bounds}), interpolated within its bucket; NaN without
   * observations, the last bound when it lies past it.
   */
  static double quantile(double[] bounds, double[] cumulative, long total, double q) {
    if (total <= 0 || bounds.length == 0) {
      return Double.NaN;
    }
    double rank = q * total;
    double lower = 0;
    double below = 0;
    for (int i = 0; i < bounds.length; i++) {
      if (cumulative[i] >= rank) {
        double inBucket = cumulative[i] - below;
        double fraction = inBucket <= 0 ? 1 : (rank - below) / inBucket;
        return lower + (bounds[i] - lower) * fraction;
      }
      lower = bounds[i];
      below = cumulative[i];
    }
    return bounds[bounds.length - 1];
  }
}
