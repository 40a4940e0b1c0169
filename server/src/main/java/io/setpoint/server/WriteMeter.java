package io.setpoint.server;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * Times every write the resource service answers (Write, WriteStatus, Delete; over gRPC, HTTP or
 * in-process), successful or not: {@code setpoint_resource_writes_seconds} with latency buckets, and
 * {@code setpoint_resource_write_errors_total} for those that failed (refused, conflicting, or not
 * committed). The UI's charts read both through {@link MeterHistory}.
 */
final class WriteMeter {
  static final String WRITES = "setpoint.resource.writes";
  static final String ERRORS = "setpoint.resource.write.errors";
  /** Half a millisecond to ten seconds, as the request buckets; quantiles are read between them. */
  private static final Duration[] BUCKETS = Stream.of(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25,
      0.5, 1.0, 2.5, 5.0, 10.0).map(s -> Duration.ofNanos(Math.round(s * 1e9))).toArray(Duration[]::new);

  private final MeterRegistry meters;
  private final Timer timer;
  private final Counter errors;

  /** Writes are timed on {@code meters}' clock. */
  WriteMeter(MeterRegistry meters) {
    this.meters = meters;
    this.timer = Timer.builder(WRITES).description("Writes answered (Write, WriteStatus, Delete)")
        .serviceLevelObjectives(BUCKETS).register(meters);
    this.errors = Counter.builder(ERRORS).description("Writes that failed").register(meters);
  }

  /** Runs {@code write}, timing it. */
  <T> T time(Supplier<T> write) {
    Timer.Sample started = Timer.start(meters);
    try {
      T answer = write.get();
      started.stop(timer);
      return answer;
    } catch (RuntimeException | Error e) {
      started.stop(timer);
      errors.increment();
      throw e;
    }
  }

  /** Times {@code write} until its future completes. */
  <T> CompletableFuture<T> timeAsync(Supplier<CompletableFuture<T>> write) {
    Timer.Sample started = Timer.start(meters);
    CompletableFuture<T> answer;
    try {
      answer = write.get();
    } catch (RuntimeException e) {
      answer = CompletableFuture.failedFuture(e);
    }
    return answer.whenComplete((ok, failure) -> {
      started.stop(timer);
      if (failure != null) {
        errors.increment();
      }
    });
  }
}
