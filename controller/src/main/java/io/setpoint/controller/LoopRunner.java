package io.setpoint.controller;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.setpoint.controller.loop.Loop;
import io.setpoint.controller.time.Ticker;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;

/**
 * Runs one {@link Loop} in a plain JVM, without a server: lists, watches and handles until closed.
 * Inside an agent, {@link Manager#register(Loop)} runs loops instead, beside the controllers.
 *
 * <pre>{@code
 * try (LoopRunner running = LoopRunner.start(loop)) {
 *   ...   // the loop runs on virtual threads until closed
 * }
 * }</pre>
 */
public final class LoopRunner implements AutoCloseable {
  private final String name;
  private final LoopEngine<?, ?> engine;
  private final Duration drain;

  private LoopRunner(Builder b) {
    this.name = b.loop.name();
    this.engine = new LoopEngine<>(b.loop, new ControllerMetrics(b.meters, b.loop.name()), b.ticker,
        new Faults(b.meters, Clock.systemUTC()));
    this.drain = b.drain;
    engine.start();
  }

  /** Starts {@code loop} with the defaults: system ticker, a private meter registry, 30 s drain. */
  public static LoopRunner start(Loop<?, ?> loop) {
    return builder(loop).start();
  }

  /** Configures how {@code loop} runs; {@link Builder#start()} starts it. */
  public static Builder builder(Loop<?, ?> loop) {
    return new Builder(loop);
  }

  /** The loop's name. */
  public String name() {
    return name;
  }

  /** How many keys are ready to handle now. */
  public int queueDepth() {
    return engine.queueDepth();
  }

  /** Lists every key now instead of at the next resync (for tools and tests). */
  public void relist() {
    engine.relist();
  }

  /**
   * Stops listing and watching, lets running handlings finish within the drain timeout (then
   * cancels them), and closes the loop's {@link io.setpoint.controller.loop.Locker}. Idempotent.
   */
  @Override
  public void close() {
    engine.stop(drain);
  }

  /** Configures a {@link LoopRunner}. */
  public static final class Builder {
    private final Loop<?, ?> loop;
    private Ticker ticker = Ticker.system();
    private MeterRegistry meters = new SimpleMeterRegistry();
    private Duration drain = Duration.ofSeconds(30);

    private Builder(Loop<?, ?> loop) {
      this.loop = Objects.requireNonNull(loop, "loop");
    }

    /** The ticker of resyncs, delays and backoff (a {@link io.setpoint.controller.time.ManualTicker} in tests). */
    public Builder ticker(Ticker ticker) {
      this.ticker = Objects.requireNonNull(ticker, "ticker");
      return this;
    }

    /** Where the {@code controller_runtime_*} and {@code workqueue_*} meters go (default: a private registry). */
    public Builder meterRegistry(MeterRegistry meters) {
      this.meters = Objects.requireNonNull(meters, "meters");
      return this;
    }

    /** How long {@link LoopRunner#close()} waits for running handlings (default 30 s). */
    public Builder drainTimeout(Duration drain) {
      this.drain = Objects.requireNonNull(drain, "drain");
      return this;
    }

    /** Starts the loop; it lists at once, then every resync interval. */
    public LoopRunner start() {
      return new LoopRunner(this);
    }
  }
}
