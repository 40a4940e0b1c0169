package io.setpoint.controller.loop;

import io.setpoint.controller.RateLimit;
import java.time.Duration;
import java.util.Objects;

/**
 * A generic control loop over objects that are not Setpoint resources (repositories, secrets, rows,
 * files): gontroller's model on the engine that runs resource controllers. Immutable; run it with
 * {@link io.setpoint.controller.LoopRunner} in a plain JVM, or register it with a {@link
 * io.setpoint.controller.Manager} to run it beside the controllers of an agent.
 *
 * <pre>{@code
 * Loop<String, Item> loop = Loop.named("inventory")
 *     .listerWatcher(ListerWatcher.of(inventory::skus, inventory::subscribe))
 *     .store(sku -> inventory.find(sku))
 *     .handler(Handler.of((ctx, item) -> Result.done(), (ctx, sku) -> Result.done()))
 *     .resync(Duration.ofSeconds(30))
 *     .build();
 * }</pre>
 *
 * <p>What the engine guarantees, whatever the lister, watch and handler do:
 *
 * <ul>
 *   <li>a key is queued at most once: lists and events that mention a queued key merge into it;
 *   <li>a key is never handled by two workers at once, nor by two instances sharing a {@link
 *       Locker};
 *   <li>the handler sees the latest state: the {@link Store} is read right before each handling;
 *   <li>an event that arrives during a handling is not lost: the key is handled again after;
 *   <li>a key whose lock another instance holds is retried after {@link Locker#retryDelay()};
 *   <li>failures are retried with exponential backoff, at most {@link #maxRetries()} times;
 *   <li>a handling runs under a cancellable {@link LoopContext} with an optional timeout;
 *   <li>a key missing from a list that had it before is handled, so its absence is seen even
 *       without a watch.
 * </ul>
 *
 * <p>Metrics and tracing are those of resource controllers ({@code controller_runtime_*} and
 * {@code workqueue_*} with the loop's name as {@code controller}/{@code name}; triggers on every
 * {@link LoopContext}; the loop and key in the logging MDC as {@code controller} and {@code key}).
 *
 * @param name the loop's name in logs and metrics
 * @param listerWatcher which keys exist, and their changes
 * @param store the current object behind a key
 * @param handler what to do with it
 * @param locker who may handle a key; {@link Locker#inMemory()} by default
 * @param resync how often to list every key; default 30 s
 * @param concurrency how many keys to handle at once; default 1
 * @param backoffBase the first retry delay; default 5 ms
 * @param backoffMax the longest retry delay; default 1000 s
 * @param rateLimit a token bucket over all retries, on top of each key's backoff; default none
 * @param maxRetries how many times a failing key is retried before it is dropped until its next
 *     list or event; default {@link Integer#MAX_VALUE} (always)
 * @param handleTimeout how long a handling may run before it is cancelled; zero (the default) for
 *     no limit
 * @param <K> the key type
 * @param <T> the object type
 */
public record Loop<K, T>(
    String name,
    ListerWatcher<K> listerWatcher,
    Store<K, T> store,
    Handler<K, T> handler,
    Locker<K> locker,
    Duration resync,
    int concurrency,
    Duration backoffBase,
    Duration backoffMax,
    RateLimit rateLimit,
    int maxRetries,
    Duration handleTimeout) {

  /** Checks the components (use {@link #named} rather than this constructor). */
  public Loop {
    if (name == null || name.isBlank()) {
      throw new IllegalArgumentException("a loop name must not be blank");
    }
    Objects.requireNonNull(listerWatcher, "listerWatcher");
    Objects.requireNonNull(store, "store");
    Objects.requireNonNull(handler, "handler");
    Objects.requireNonNull(locker, "locker");
    requirePositive(resync, "resync");
    requirePositive(backoffBase, "backoff base");
    requirePositive(backoffMax, "backoff max");
    if (backoffMax.compareTo(backoffBase) < 0) {
      throw new IllegalArgumentException("backoff max " + backoffMax + " is below its base " + backoffBase);
    }
    if (concurrency < 1) {
      throw new IllegalArgumentException("concurrency must be at least 1, was " + concurrency);
    }
    Objects.requireNonNull(rateLimit, "rateLimit");
    if (maxRetries < 0) {
      throw new IllegalArgumentException("maxRetries must not be negative, was " + maxRetries);
    }
    Objects.requireNonNull(handleTimeout, "handleTimeout");
    if (handleTimeout.isNegative()) {
      throw new IllegalArgumentException("handleTimeout must not be negative, was " + handleTimeout);
    }
  }

  /**
   * Starts building a loop called {@code name}. Give the {@link Builder#listerWatcher lister}, then
   * the {@link Builder#store store} (each fixes a type parameter), then the {@link Builder#handler
   * handler} and any options, then {@link Builder#build()}.
   */
  public static Builder<Object, Object> named(String name) {
    return new Builder<>(name);
  }

  private static void requirePositive(Duration d, String what) {
    Objects.requireNonNull(d, what);
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(what + " must be positive: " + d);
    }
  }

  /**
   * Builds a {@link Loop}. Not thread-safe. {@link #listerWatcher} and {@link #store} return the
   * builder retyped to their key and object types, so call them in that order before {@link
   * #handler}.
   *
   * @param <K> the key type, once the lister is given
   * @param <T> the object type, once the store is given
   */
  public static final class Builder<K, T> {
    private final String name;
    private ListerWatcher<?> listerWatcher;
    private Store<?, ?> store;
    private Handler<?, ?> handler;
    private Locker<?> locker;
    private Duration resync = Duration.ofSeconds(30);
    private int concurrency = 1;
    private Duration backoffBase = Duration.ofMillis(5);
    private Duration backoffMax = Duration.ofSeconds(1000);
    private RateLimit rateLimit = RateLimit.UNLIMITED;
    private int maxRetries = Integer.MAX_VALUE;
    private Duration handleTimeout = Duration.ZERO;

    private Builder(String name) {
      this.name = name;
    }

    /** Which keys exist (listed every {@link #resync} interval) and, optionally, their changes. */
    @SuppressWarnings("unchecked")
    public <K2> Builder<K2, T> listerWatcher(ListerWatcher<K2> listerWatcher) {
      this.listerWatcher = Objects.requireNonNull(listerWatcher, "listerWatcher");
      return (Builder<K2, T>) this;
    }

    /** Where the current object behind a key is fetched from, right before each handling. */
    @SuppressWarnings("unchecked")
    public <T2> Builder<K, T2> store(Store<K, T2> store) {
      this.store = Objects.requireNonNull(store, "store");
      return (Builder<K, T2>) this;
    }

    /** What to do with a present object or an absent key. */
    public Builder<K, T> handler(Handler<K, T> handler) {
      this.handler = Objects.requireNonNull(handler, "handler");
      return this;
    }

    /** Who may handle a key (default {@link Locker#inMemory()}); {@link LeaseLocker} to share. */
    public Builder<K, T> locker(Locker<K> locker) {
      this.locker = Objects.requireNonNull(locker, "locker");
      return this;
    }

    /** How often every key is listed and handled again (default 30 s). */
    public Builder<K, T> resync(Duration resync) {
      this.resync = resync;
      return this;
    }

    /** How many keys are handled at once (default 1); never two handlings of one key. */
    public Builder<K, T> concurrency(int concurrency) {
      this.concurrency = concurrency;
      return this;
    }

    /** Retry delays: {@code base} doubling per consecutive failure up to {@code max}. */
    public Builder<K, T> backoff(Duration base, Duration max) {
      this.backoffBase = base;
      this.backoffMax = max;
      return this;
    }

    /**
     * Limits retries across all keys to {@code perSecond}, with bursts of up to {@code burst}, on
     * top of each key's backoff (default: no limit). See {@link RateLimit}.
     */
    public Builder<K, T> rateLimit(double perSecond, int burst) {
      this.rateLimit = RateLimit.of(perSecond, burst);
      return this;
    }

    /** Retries of a failing key before it is dropped until its next list or event; 0 for none. */
    public Builder<K, T> maxRetries(int maxRetries) {
      this.maxRetries = maxRetries;
      return this;
    }

    /** Cancels (interrupts) a handling that runs longer than {@code timeout}; zero for never. */
    public Builder<K, T> handleTimeout(Duration timeout) {
      this.handleTimeout = timeout;
      return this;
    }

    /**
     * The loop.
     *
     * @throws IllegalStateException when the lister, store or handler is missing
     */
    @SuppressWarnings("unchecked")
    public Loop<K, T> build() {
      if (listerWatcher == null || store == null || handler == null) {
        throw new IllegalStateException("loop " + name + " needs a listerWatcher, a store and a handler");
      }
      Locker<K> lockerOrDefault = locker == null ? Locker.inMemory() : (Locker<K>) locker;
      return new Loop<>(name, (ListerWatcher<K>) listerWatcher, (Store<K, T>) store,
          (Handler<K, T>) handler, lockerOrDefault, resync, concurrency, backoffBase, backoffMax,
          rateLimit, maxRetries, handleTimeout);
    }
  }
}
