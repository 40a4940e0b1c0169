package io.setpoint.controller.loop;

import io.setpoint.controller.Controller.RateLimit;
import io.setpoint.controller.ReconcileContext;
import io.setpoint.controller.Result;
import io.setpoint.controller.source.Source;
import java.time.Duration;
import java.util.Collection;
import java.util.Objects;
import java.util.Optional;

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
 *   <li>a handling runs under a cancellable {@link Context} with an optional timeout;
 *   <li>a key missing from a list that had it before is handled, so its absence is seen even
 *       without a watch.
 * </ul>
 *
 * <p>Metrics and tracing are those of resource controllers ({@code controller_runtime_*} and
 * {@code workqueue_*} with the loop's name as {@code controller}/{@code name}; triggers on every
 * {@link Context}; the loop and key in the logging MDC as {@code controller} and {@code key}).
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
    Objects.requireNonNull(rateLimit, "rateLimit");
    requirePositive(resync, "resync");
    requirePositive(backoffBase, "backoff base");
    requirePositive(backoffMax, "backoff max");
    if (backoffMax.compareTo(backoffBase) < 0) {
      throw new IllegalArgumentException("backoff max " + backoffMax + " is below its base " + backoffBase);
    }
    if (concurrency < 1) {
      throw new IllegalArgumentException("concurrency must be at least 1, was " + concurrency);
    }
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
   * Says which keys a loop handles: a full {@link #list()} every resync interval, plus an optional
   * real-time {@link #watch()} so changes need not wait for the next list.
   *
   * <p>Lists are the safety net: a key in a list is handled (at low priority) even if no watch event
   * mentioned it, and a key that was in the previous list but is missing from this one is handled too
   * (the {@link Store} then finds it absent and the {@link Handler} cleans up). A watch may drop
   * events or fail; the next list repairs whatever it missed.
   *
   * <pre>{@code
   * ListerWatcher<String> lists = () -> inventory.keySet();            // lists only
   * ListerWatcher<String> both = ListerWatcher.of(() -> inventory.keySet(), inventory::subscribe);
   * }</pre>
   *
   * @param <K> the key type; keys must have consistent {@code equals}/{@code hashCode} and should be
   *     immutable
   */
  @FunctionalInterface
  public interface ListerWatcher<K> {
    /**
     * Every key that exists now. Called from one thread at a time; throwing skips this list (the
     * next one comes one resync interval later) and forgets nothing.
     */
    Collection<? extends K> list() throws Exception;

    /** The real-time changes between lists; none by default (lists only). */
    default Optional<Source<Change<K>>> watch() {
      return Optional.empty();
    }

    /** Lists with {@code lister} and watches with {@code watch}. */
    static <K> ListerWatcher<K> of(ListerWatcher<K> lister, Source<Change<K>> watch) {
      Objects.requireNonNull(lister, "lister");
      Objects.requireNonNull(watch, "watch");
      return new ListerWatcher<>() {
        @Override
        public Collection<? extends K> list() throws Exception {
          return lister.list();
        }

        @Override
        public Optional<Source<Change<K>>> watch() {
          return Optional.of(watch);
        }
      };
    }
  }

  /**
   * A real-time change a {@link ListerWatcher#watch() watch} reports. It only says "look at this
   * key": the loop reads the key's state from the {@link Store} right before handling it, so the
   * kind serves tracing, not the choice between present and absent.
   *
   * @param <K> the key type
   */
  public record Change<K>(Kind kind, K key) {
    /** What happened to a key. */
    public enum Kind {
      /** The object appeared. */
      ADDED,
      /** The object changed. */
      MODIFIED,
      /** The object went away. */
      DELETED
    }

    /** Checks that neither component is null. */
    public Change {
      Objects.requireNonNull(kind, "kind");
      Objects.requireNonNull(key, "key");
    }

    /** {@code key} appeared. */
    public static <K> Change<K> added(K key) {
      return new Change<>(Kind.ADDED, key);
    }

    /** {@code key} changed. */
    public static <K> Change<K> modified(K key) {
      return new Change<>(Kind.MODIFIED, key);
    }

    /** {@code key} went away. */
    public static <K> Change<K> deleted(K key) {
      return new Change<>(Kind.DELETED, key);
    }
  }

  /**
   * Fetches the current state of the object behind a key, right before each handling and never
   * earlier, so a handler sees the latest state rather than the state when the key was queued.
   *
   * <pre>{@code
   * Store<String, Item> store = sku -> Optional.ofNullable(inventory.get(sku));
   * }</pre>
   *
   * @param <K> the key type
   * @param <T> the object type
   */
  @FunctionalInterface
  public interface Store<K, T> {
    /**
     * The object behind {@code key} now, or empty if it does not exist (then the handler's {@link
     * Handler#onAbsent onAbsent} runs). Throwing counts as a failed handling and is retried.
     */
    Optional<T> get(K key) throws Exception;

    /** A store whose object is the key itself, for loops that need nothing but the key. */
    static <K> Store<K, K> identity() {
      return Optional::of;
    }
  }

  /**
   * The business logic: drives the world toward the object's state when it exists ({@link
   * #onPresent}) and cleans up when it does not ({@link #onAbsent}). Called for at most one handling
   * of a key at a time, with state fetched from the {@link Store} just before; must be idempotent,
   * since lists, retries and restarts hand it the same state again.
   *
   * <p>Return {@link Result#done()}, or {@link Result#requeueAfter} to look again later. Throwing
   * retries the key with exponential backoff (up to the loop's {@code maxRetries}), except for a
   * {@link io.setpoint.controller.TerminalException}.
   *
   * <pre>{@code
   * Handler<String, Item> handler = Handler.of(
   *     (ctx, item) -> { upsert(item); return Result.done(); },
   *     (ctx, sku) -> { remove(sku); return Result.done(); });
   * }</pre>
   *
   * @param <K> the key type
   * @param <T> the object type
   */
  @FunctionalInterface
  public interface Handler<K, T> {
    /** The object behind {@code ctx.key()} exists and is {@code object}. */
    Result onPresent(Context<K> ctx, T object) throws Exception;

    /** The object behind {@code key} does not exist (any more). Does nothing by default. */
    default Result onAbsent(Context<K> ctx, K key) throws Exception {
      return Result.done();
    }

    /** What to do when an object is absent; the second half of {@link #of}. */
    @FunctionalInterface
    interface Absent<K> {
      /** See {@link Handler#onAbsent}. */
      Result onAbsent(Context<K> ctx, K key) throws Exception;
    }

    /** A handler from two lambdas. */
    static <K, T> Handler<K, T> of(Handler<K, T> onPresent, Absent<K> onAbsent) {
      Objects.requireNonNull(onPresent, "onPresent");
      Objects.requireNonNull(onAbsent, "onAbsent");
      return new Handler<>() {
        @Override
        public Result onPresent(Context<K> ctx, T object) throws Exception {
          return onPresent.onPresent(ctx, object);
        }

        @Override
        public Result onAbsent(Context<K> ctx, K key) throws Exception {
          return onAbsent.onAbsent(ctx, key);
        }
      };
    }
  }

  /**
   * One handling's circumstances: the key, why it runs ({@link #triggers()}: a list, an event, a
   * retry...), how long it waited, and whether it is {@linkplain #isCancelled() cancelled}: past the
   * handle timeout, or as the loop stops, when its thread is also interrupted.
   */
  public interface Context<K> extends ReconcileContext {
    /** The key being handled. */
    K key();
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

    /** Who may handle a key (default {@link Locker#inMemory()}); {@link Locker#lease} to share. */
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
