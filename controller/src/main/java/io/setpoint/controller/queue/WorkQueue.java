package io.setpoint.controller.queue;

import io.setpoint.controller.time.Ticker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import java.util.function.IntSupplier;
import java.util.function.Predicate;

/**
 * The work queue of a controller: keys to reconcile, de-duplicated, delayed, rate limited,
 * prioritised and shared fairly between tenants.
 *
 * <p>Guarantees:
 *
 * <ul>
 *   <li><b>At most once in the queue.</b> Adding a key that is already pending merges the add into
 *       it (its {@link Trigger}s are coalesced onto the {@link Item}, its priority raised).
 *   <li><b>Never twice at once, never lost.</b> A key handed out by {@link #take()} is not handed
 *       out again until {@link #done(Object)}; an add that arrives meanwhile marks it dirty, and it
 *       becomes ready again the moment {@code done} is called.
 *   <li><b>Nothing early.</b> A key added with a delay is handed out no sooner than its due time, as
 *       read from the queue's {@link Ticker}.
 *   <li><b>Priorities without starvation.</b> {@link Priority#HIGH} keys are served before {@link
 *       Priority#LOW} ones until a LOW key has been ready for the {@linkplain Builder#aging aging}
 *       period; from then on the oldest aged LOW key and the HIGH keys take turns, one each, so a
 *       startup sweep of 100,000 keys delays a live event by at most one reconcile.
 *   <li><b>Fair between tenants.</b> With a {@linkplain Builder#tenant tenant function}, ready keys
 *       of one priority are served round-robin across tenants, so a tenant with thousands of keys
 *       delays another tenant's key by at most one key per busy tenant.
 * </ul>
 *
 * <p>A key has at most one pending time: ready now, or due at one point in the future. An immediate
 * add makes a delayed key ready now; a delayed add only ever brings a pending time forward, unless
 * it {@linkplain #addAfter(Object, Duration, Trigger, Priority, boolean) overrides} it.
 *
 * <p>Thread-safe; one lock guards all state and no background thread is used: whoever waits in
 * {@link #take()} computes when the next delayed key is due. Keys must have consistent {@code
 * equals}/{@code hashCode} and should be immutable.
 *
 * <p>One file on purpose, the one source file over the project's size limit (SourceLayoutTest):
 * every operation takes that lock and moves a key between the same few maps and heaps, and the
 * guarantees above are invariants over all of them at once; split, each part would see half of
 * the state its invariant is about.
 *
 * <pre>{@code
 * WorkQueue<Request> queue = WorkQueue.<Request>builder()
 *     .tenant(r -> r.tenancy())
 *     .rateLimit(10, 100)
 *     .build();
 * queue.add(request, Trigger.event("upsert ..."), Priority.HIGH);
 * WorkQueue.Item<Request> item = queue.take();
 * try { ... } finally { queue.done(item.key()); }
 * }</pre>
 *
 * @param <K> the key type
 */
public final class WorkQueue<K> {
  /** Delays beyond this (about 146 years) are clamped so that {@code now + delay} cannot wrap. */
  private static final long MAX_DELAY_NANOS = 1L << 62;
  private static final Duration MAX_DELAY = Duration.ofNanos(MAX_DELAY_NANOS);
  private static final Duration MIN_DELAY = Duration.ofNanos(-MAX_DELAY_NANOS);

  private final String name;
  private final Ticker ticker;
  private final boolean manualTime;
  private final Backoff backoff;
  private final TokenBucket bucket; // null: no global rate limit
  private final Listener listener;
  /** Whether done() reads the clock: only a listener wants the work time. */
  private final boolean timedDone;

  private final ReentrantLock lock = new ReentrantLock();
  /** Signalled when a key may have become ready, and on shutdown. */
  private final Condition available = lock.newCondition();
  /** Signalled when the last in-flight key is done after shutdown. */
  private final Condition drained = lock.newCondition();

  private final HashMap<K, Entry<K>> entries = new HashMap<>();
  private final ReadyLanes<K> lanes;
  private final DelayHeap<K> delayed = new DelayHeap<>();
  private final Ticker.Registration tickerRegistration;
  private int depth; // keys whose pending time has come: in lanes, or dirty while in flight
  private int inFlight;
  private long seq;
  private boolean shutDown;
  /**
   * The taker that sleeps until the first delayed key is due; the others sleep untimed, so one
   * due key wakes one thread, not all of them (the leader-follower scheme of {@code DelayQueue}).
   */
  private Thread leader;

  private WorkQueue(Builder<K> b) {
    this.name = b.name;
    this.ticker = b.ticker;
    this.manualTime = ticker.isManual();
    this.backoff = b.backoff;
    this.listener = b.listener;
    this.timedDone = b.listener != Listener.NONE;
    this.lanes = new ReadyLanes<>(Priority.values().length, nanos(b.aging), b.tenant);
    this.bucket = b.qps > 0 ? new TokenBucket(b.qps, b.burst, ticker.read()) : null;
    this.tickerRegistration = ticker.onAdvance(this::wakeAll);
  }

  /** A builder with the defaults: system ticker, backoff 5 ms doubling to 1000 s, aging 1 s. */
  public static <K> Builder<K> builder() {
    return new Builder<>();
  }

  /**
   * Queues {@code key} now. If it is already pending, the add is merged into it (a delayed key
   * becomes ready now; the priority is raised if {@code priority} is higher). If it is in flight,
   * it is queued again when {@link #done(Object)} is called. Ignored after shutdown.
   */
  public void add(K key, Trigger cause, Priority priority) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(cause, "cause");
    Objects.requireNonNull(priority, "priority");
    lock.lock();
    try {
      if (shutDown) {
        return;
      }
      long now = ticker.read();
      promoteDue(now);
      makeReady(entryFor(key), cause, priority, now);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Queues {@code key} once {@code delay} has passed; a later call can only bring that time
   * forward. Same as {@link #addAfter(Object, Duration, Trigger, Priority, boolean)} without
   * override.
   */
  public void addAfter(K key, Duration delay, Trigger cause, Priority priority) {
    addAfter(key, delay, cause, priority, false);
  }

  /**
   * Queues {@code key} once {@code delay} has passed (at once if {@code delay} is zero or negative).
   *
   * <p>If the key is already waiting for a due time, the earlier of the two times wins, unless
   * {@code override} is set: then the new time replaces the old one even if it is later (for a
   * reconcile that asks to run again in exactly that long). Override never postpones a key that is
   * already ready, so an update that arrived meanwhile is not lost. Ignored after shutdown.
   */
  public void addAfter(K key, Duration delay, Trigger cause, Priority priority, boolean override) {
    Objects.requireNonNull(key, "key");
    long delayNanos = nanos(delay);
    Objects.requireNonNull(cause, "cause");
    Objects.requireNonNull(priority, "priority");
    lock.lock();
    try {
      if (shutDown) {
        return;
      }
      long now = ticker.read();
      promoteDue(now);
      Entry<K> e = entryFor(key);
      if (delayNanos <= 0) {
        makeReady(e, cause, priority, now);
      } else {
        schedule(e, now + delayNanos, cause, priority, override, now);
      }
    } finally {
      lock.unlock();
    }
  }

  /**
   * Queues {@code key} again after a failure, at {@link Priority#HIGH}: records one more failure
   * and delays the key by its exponential backoff, or longer if the global token bucket is empty.
   * Like a delayed add without override, it never postpones an earlier pending time. Ignored after
   * shutdown.
   */
  public void addRateLimited(K key, Trigger cause) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(cause, "cause");
    lock.lock();
    try {
      if (shutDown) {
        return;
      }
      long now = ticker.read();
      promoteDue(now);
      Entry<K> e = entryFor(key);
      if (e.failures < Integer.MAX_VALUE) {
        e.failures++;
      }
      long delayNanos = backoff.delayNanos(e.failures);
      if (bucket != null) {
        delayNanos = Math.max(delayNanos, bucket.reserve(now));
      }
      listener.retried(cause, delayNanos);
      if (delayNanos <= 0) {
        makeReady(e, cause, Priority.HIGH, now);
      } else {
        schedule(e, now + delayNanos, cause, Priority.HIGH, false, now);
      }
    } finally {
      lock.unlock();
    }
  }

  /** Clears the failures recorded for {@code key}, so its next backoff starts from the base again. */
  public void forget(K key) {
    lock.lock();
    try {
      Entry<K> e = entries.get(key);
      if (e != null) {
        e.failures = 0;
        dropIfIdle(e);
      }
    } finally {
      lock.unlock();
    }
  }

  /**
   * Drops every key that waits for a delay (a requeue-after, a resync, a retry's backoff) and
   * matches {@code drop}, with its failures; returns how many. For keys this queue's owner no
   * longer handles, which would otherwise stay until their time came.
   */
  public int dropWaiting(Predicate<? super K> drop) {
    lock.lock();
    try {
      List<Entry<K>> dropped = new ArrayList<>();
      for (int i = 0; i < delayed.size(); i++) {
        if (drop.test(delayed.at(i).key)) {
          dropped.add(delayed.at(i));
        }
      }
      for (Entry<K> e : dropped) {
        delayed.remove(e);
        e.pending = Entry.NONE;
        e.clearCauses();
        e.failures = 0;
        dropIfIdle(e);
      }
      return dropped.size();
    } finally {
      lock.unlock();
    }
  }

  /** The number of failures recorded for {@code key} since it was last forgotten. */
  public int retries(K key) {
    lock.lock();
    try {
      Entry<K> e = entries.get(key);
      return e == null ? 0 : e.failures;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Waits until a key is ready and hands it out, marking it in flight; returns null once the queue
   * is shut down. The caller must call {@link #done(Object)} with the key when finished.
   *
   * @throws InterruptedException if interrupted while waiting
   */
  public Item<K> take() throws InterruptedException {
    return await(-1);
  }

  /**
   * Like {@link #take()}, but gives up and returns null after {@code timeout} of real time; {@link
   * Duration#ZERO} never blocks. Returns null once the queue is shut down.
   *
   * @throws InterruptedException if interrupted while waiting
   */
  public Item<K> poll(Duration timeout) throws InterruptedException {
    return await(Math.max(0, nanos(timeout)));
  }

  /**
   * Marks {@code key} as finished. If it was added while in flight, it is ready again now (or stays
   * scheduled, if it was added with a delay that has not passed).
   *
   * @throws IllegalStateException if {@code key} is not in flight: it was not taken, or is done
   *     already
   */
  public void done(K key) {
    lock.lock();
    try {
      Entry<K> e = entries.get(key);
      if (e == null || !e.inFlight) {
        throw new IllegalStateException("not in flight in work queue " + name + ": " + key);
      }
      e.inFlight = false;
      inFlight--;
      if (timedDone) {
        listener.done(ticker.read() - e.takenAt);
      }
      if (e.pending == Entry.READY) {
        // Only the lower levels age, in the order entries join them, so only they need the time.
        long since = e.priority == Priority.HIGH ? e.enqueuedAt : ticker.read();
        lanes.add(e, e.priority.ordinal(), since);
        available.signal();
      } else {
        dropIfIdle(e);
      }
      if (shutDown && inFlight == 0) {
        drained.signalAll();
      }
    } finally {
      lock.unlock();
    }
  }

  /**
   * Stops the queue: waiting and future takers get null, adds are ignored, pending keys are
   * discarded. Keys in flight may still be marked {@linkplain #done done}. Idempotent.
   */
  public void shutDown() {
    lock.lock();
    try {
      if (shutDown) {
        return;
      }
      shutDown = true;
      tickerRegistration.close();
      available.signalAll();
      if (inFlight == 0) {
        drained.signalAll();
      }
    } finally {
      lock.unlock();
    }
  }

  /**
   * {@linkplain #shutDown Shuts down} and waits up to {@code timeout} (real time) for every key in
   * flight to be done. Returns true if none is left in flight, false on timeout or interrupt (the
   * interrupt status is kept, so a stopping thread is never stuck here).
   */
  public boolean shutDownAndDrain(Duration timeout) {
    long remaining = Math.max(0, nanos(timeout));
    shutDown();
    lock.lock();
    try {
      while (inFlight > 0) {
        if (remaining <= 0) {
          return false;
        }
        remaining = drained.awaitNanos(remaining);
      }
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    } finally {
      lock.unlock();
    }
  }

  /** True once {@link #shutDown()} was called. */
  public boolean isShutDown() {
    lock.lock();
    try {
      return shutDown;
    } finally {
      lock.unlock();
    }
  }

  /**
   * The number of keys whose time has come: ready to take, or added again while in flight. Keys
   * waiting for a delay are not counted (see {@link #delayed()}).
   */
  public int depth() {
    return countAfterPromoting(() -> depth);
  }

  /** The number of keys waiting for a delay (requeue-after, backoff, resync) that is not yet due. */
  public int delayed() {
    return countAfterPromoting(delayed::size);
  }

  /** A count read under the lock once every delayed key whose time has come is ready. */
  private int countAfterPromoting(IntSupplier count) {
    lock.lock();
    try {
      if (!shutDown) {
        promoteDue(ticker.read());
      }
      return count.getAsInt();
    } finally {
      lock.unlock();
    }
  }

  /** The number of keys taken and not yet done. */
  public int inFlight() {
    lock.lock();
    try {
      return inFlight;
    } finally {
      lock.unlock();
    }
  }

  @Override
  public String toString() {
    lock.lock();
    try {
      return "WorkQueue[" + name + ", depth=" + depth + ", delayed=" + delayed.size()
          + ", inFlight=" + inFlight + (shutDown ? ", shut down]" : "]");
    } finally {
      lock.unlock();
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Internals; every method below runs with the lock held.

  private Entry<K> entryFor(K key) {
    Entry<K> e = entries.get(key);
    if (e == null) {
      e = new Entry<>(key, lanes.acquire(key));
      entries.put(key, e);
    }
    return e;
  }

  private void dropIfIdle(Entry<K> e) {
    if (e.idle()) {
      entries.remove(e.key);
      lanes.release(e.tenant);
    }
  }

  /** Makes {@code e} ready now, merging into whatever is pending. */
  private void makeReady(Entry<K> e, Trigger cause, Priority priority, long now) {
    switch (e.pending) {
      case Entry.READY -> {
        e.coalesce(cause, priority);
        if (e.level >= 0) {
          lanes.raise(e, e.priority.ordinal(), now);
        }
        listener.added(cause, priority, true);
        return;
      }
      case Entry.DELAYED -> {
        delayed.remove(e);
        e.coalesce(cause, priority);
        listener.added(cause, priority, true);
      }
      default -> {
        e.firstCause(cause, priority);
        listener.added(cause, priority, false);
      }
    }
    becomeReady(e, now, now);
  }

  /** Makes {@code e} due at {@code due}, keeping an earlier pending time unless overriding. */
  private void schedule(
      Entry<K> e, long due, Trigger cause, Priority priority, boolean override, long now) {
    switch (e.pending) {
      case Entry.READY -> {
        // Already due: a delay (even an override) must not postpone an update that is waiting.
        e.coalesce(cause, priority);
        if (e.level >= 0) {
          lanes.raise(e, e.priority.ordinal(), now);
        }
        listener.added(cause, priority, true);
      }
      case Entry.DELAYED -> {
        e.coalesce(cause, priority);
        listener.added(cause, priority, true);
        if (override || due - e.due < 0) {
          e.due = due;
          delayed.changed(e);
          wakeLeaderIfFirst(e);
        }
      }
      default -> {
        e.firstCause(cause, priority);
        listener.added(cause, priority, false);
        e.pending = Entry.DELAYED;
        e.due = due;
        e.seq = seq++;
        delayed.add(e);
        wakeLeaderIfFirst(e);
      }
    }
  }

  /**
   * A new first delayed key: the leader sleeps for a later time, so wake one taker to recompute
   * its sleep. With a manual ticker nobody sleeps for a span of time, so there is nothing to do.
   */
  private void wakeLeaderIfFirst(Entry<K> e) {
    if (!manualTime && delayed.peek() == e) {
      leader = null;
      available.signal();
    }
  }

  /** Pending becomes READY; into a lane unless in flight (then it is dirty until done). */
  private void becomeReady(Entry<K> e, long enqueuedAt, long now) {
    e.pending = Entry.READY;
    e.enqueuedAt = enqueuedAt;
    depth++;
    listener.depthChanged(depth);
    if (!e.inFlight) {
      lanes.add(e, e.priority.ordinal(), now);
      available.signal();
    }
  }

  /** Moves every delayed key whose time has come to ready, stamped with its due time. */
  private void promoteDue(long now) {
    Entry<K> e;
    while ((e = delayed.peek()) != null && e.due - now <= 0) {
      delayed.poll();
      becomeReady(e, e.due, now);
    }
  }

  private Item<K> await(long timeoutNanos) throws InterruptedException {
    final ReentrantLock lock = this.lock;
    lock.lockInterruptibly();
    try {
      long deadline = timeoutNanos > 0 ? System.nanoTime() + timeoutNanos : 0;
      for (; ; ) {
        if (shutDown) {
          return null;
        }
        long now = ticker.read();
        promoteDue(now);
        Entry<K> e = lanes.poll(now);
        if (e != null) {
          return handOut(e, now);
        }
        long wait; // real nanoseconds to sleep at most; Long.MAX_VALUE: until signalled
        if (timeoutNanos < 0) {
          wait = Long.MAX_VALUE;
        } else {
          wait = timeoutNanos == 0 ? 0 : deadline - System.nanoTime();
          if (wait <= 0) {
            return null;
          }
        }
        Entry<K> next = delayed.peek();
        if (next == null || manualTime || leader != null) {
          if (wait == Long.MAX_VALUE) {
            available.await();
          } else {
            available.awaitNanos(wait);
          }
        } else {
          Thread me = Thread.currentThread();
          leader = me;
          try {
            available.awaitNanos(Math.min(wait, next.due - now));
          } finally {
            if (leader == me) {
              leader = null;
            }
          }
        }
      }
    } finally {
      // Pass the baton: if keys are ready or waiting and nobody leads, wake another taker.
      if (leader == null && !shutDown && (lanes.size() > 0 || delayed.size() > 0)) {
        available.signal();
      }
      lock.unlock();
    }
  }

  private Item<K> handOut(Entry<K> e, long now) {
    e.pending = Entry.NONE;
    e.inFlight = true;
    e.takenAt = now;
    inFlight++;
    depth--;
    Item<K> item = new Item<>(e.key, e.triggers(), e.triggerCount, e.priority, e.failures, e.enqueuedAt, now);
    e.clearCauses();
    listener.depthChanged(depth);
    listener.taken(item);
    return item;
  }

  private void wakeAll() {
    lock.lock();
    try {
      available.signalAll();
    } finally {
      lock.unlock();
    }
  }

  private static long nanos(Duration d) {
    Objects.requireNonNull(d, "duration");
    if (d.compareTo(MAX_DELAY) > 0) {
      return MAX_DELAY_NANOS;
    }
    if (d.compareTo(MIN_DELAY) < 0) {
      return -MAX_DELAY_NANOS;
    }
    return d.toNanos();
  }

  /** The number of tenants with keys in the queue; for tests. */
  int tenantCount() {
    lock.lock();
    try {
      return lanes.tenantCount();
    } finally {
      lock.unlock();
    }
  }

  /** Checks every internal structure against the entries; for tests. */
  void checkInvariants() {
    lock.lock();
    try {
      int ready = 0;
      int waiting = 0;
      int taken = 0;
      for (var mapping : entries.entrySet()) {
        Entry<K> e = mapping.getValue();
        ReadyLanes.check(mapping.getKey().equals(e.key), "map key " + e);
        ReadyLanes.check(!e.idle(), "idle entry kept: " + e);
        ReadyLanes.check(e.pending != Entry.READY || (e.level >= 0) != e.inFlight,
            "ready entry is in a lane exactly when not in flight: " + e);
        ReadyLanes.check(e.pending == Entry.READY || e.level < 0, "only ready entries in lanes " + e);
        ReadyLanes.check((e.pending == Entry.DELAYED) == (e.heapIndex >= 0), "heap index " + e);
        ReadyLanes.check(e.pending == Entry.NONE || e.triggerCount > 0, "pending without cause " + e);
        ready += e.pending == Entry.READY ? 1 : 0;
        waiting += e.pending == Entry.DELAYED ? 1 : 0;
        taken += e.inFlight ? 1 : 0;
      }
      ReadyLanes.check(ready == depth, "depth " + depth + " but " + ready + " ready");
      ReadyLanes.check(waiting == delayed.size(), "heap size");
      ReadyLanes.check(taken == inFlight, "in flight " + inFlight + " but " + taken);
      for (int i = 0; i < delayed.size(); i++) {
        Entry<K> e = delayed.at(i);
        ReadyLanes.check(e.heapIndex == i && entries.get(e.key) == e, "heap entry " + e);
        ReadyLanes.check(i == 0 || delayed.at((i - 1) / 2).due - e.due <= 0, "heap order");
      }
      lanes.checkAndCount();
    } finally {
      lock.unlock();
    }
  }

  /**
   * One key handed out by {@link #take()}, with the story of how it got there; the taker calls
   * {@link #done(Object)} with the key when it has finished.
   *
   * @param triggers the causes of the adds merged into it, oldest first, including delayed adds it
   *     serves early (a resync a change event pre-empted); beyond {@link #MAX_TRIGGERS}, the first
   *     {@code MAX_TRIGGERS - 1} and the latest
   * @param triggerCount how many adds were coalesced into it (at least {@code triggers.size()})
   * @param priority the highest priority those adds asked for
   * @param retries the failures recorded for the key ({@link WorkQueue#retries}) when it was taken
   * @param enqueuedAt ticker time at which the key became ready: added, or its delay came due
   * @param takenAt ticker time at which it was taken
   */
  public record Item<K>(K key, List<Trigger> triggers, int triggerCount, Priority priority, int retries,
      long enqueuedAt, long takenAt) {
    /** The most triggers an item keeps. */
    public static final int MAX_TRIGGERS = 8;

    /** Checks the components; {@code triggers} is copied unless already immutable. */
    public Item {
      Objects.requireNonNull(key, "key");
      triggers = List.copyOf(triggers);
      Objects.requireNonNull(priority, "priority");
      if (triggers.isEmpty() || triggerCount < triggers.size()) {
        throw new IllegalArgumentException("need a trigger and triggerCount >= triggers: " + triggerCount + " " + triggers);
      }
    }

    /** The first cause: the add that queued the key. */
    public Trigger trigger() {
      return triggers.get(0);
    }

    /** How long the key waited between becoming ready and being taken. */
    public Duration queueWait() {
      return Duration.ofNanos(takenAt - enqueuedAt);
    }
  }

  /**
   * Callbacks for metrics and tracing, each a no-op by default. The queue calls them <em>holding its
   * lock</em>, so that values such as the depth are reported in order: they must be quick, must not
   * throw, and must not call back into the queue. Durations are ticker nanoseconds, as {@code long}s
   * so that the hot path allocates nothing.
   */
  public interface Listener {
    /** A listener that ignores everything. */
    Listener NONE = new Listener() {};

    /** An add was accepted ({@code workqueue_adds_total}), {@code coalesced} into a pending key or not. */
    default void added(Trigger cause, Priority priority, boolean coalesced) {}

    /** The number of ready keys changed ({@code workqueue_depth}). */
    default void depthChanged(int depth) {}

    /** {@code item} was handed out after its {@code queueWait()} ({@code workqueue_queue_duration_seconds}). */
    default void taken(Item<?> item) {}

    /** A taker finished an item after {@code workNanos} ({@code workqueue_work_duration_seconds}). */
    default void done(long workNanos) {}

    /** A rate-limited add comes due after {@code delayNanos} ({@code workqueue_retries_total}). */
    default void retried(Trigger cause, long delayNanos) {}
  }

  /**
   * Configures a {@link WorkQueue}. Every setting has a default; the builder is not thread-safe.
   *
   * @param <K> the key type
   */
  public static final class Builder<K> {
    private String name = "queue";
    private Ticker ticker = Ticker.system();
    private Backoff backoff = Backoff.of(Duration.ofMillis(5), Duration.ofSeconds(1000), 2);
    private double qps;
    private int burst;
    private Duration aging = Duration.ofSeconds(1);
    private Function<? super K, String> tenant;
    private Listener listener = Listener.NONE;

    private Builder() {}

    /** A name for messages and {@code toString()}; default {@code "queue"}. */
    public Builder<K> name(String name) {
      this.name = Objects.requireNonNull(name, "name");
      return this;
    }

    /** The clock for delays, backoff, aging and queue-wait times; default {@link Ticker#system()}. */
    public Builder<K> ticker(Ticker ticker) {
      this.ticker = Objects.requireNonNull(ticker, "ticker");
      return this;
    }

    /** Per-key backoff for {@link #addRateLimited}: {@code base} doubling up to {@code max}. */
    public Builder<K> backoff(Duration base, Duration max) {
      return backoff(base, max, 2);
    }

    /**
     * Per-key backoff for {@link #addRateLimited}: the n-th consecutive failure waits {@code base *
     * multiplier^(n-1)}, at most {@code max}. Default 5 ms, 1000 s, 2.
     */
    public Builder<K> backoff(Duration base, Duration max, double multiplier) {
      this.backoff = Backoff.of(base, max, multiplier);
      return this;
    }

    /**
     * A global token bucket for {@link #addRateLimited}: {@code perSecond} tokens per second, up to
     * {@code burst} saved. A retry waits for the longer of its backoff and its token. Default: none.
     */
    public Builder<K> rateLimit(double perSecond, int burst) {
      if (!(perSecond > 0) || Double.isInfinite(perSecond) || burst < 1) {
        throw new IllegalArgumentException(
            "need a finite rate > 0 and burst >= 1: " + perSecond + ", " + burst);
      }
      this.qps = perSecond;
      this.burst = burst;
      return this;
    }

    /**
     * How long a {@link Priority#LOW} key may wait behind {@link Priority#HIGH} ones before it takes
     * turns with them; default 1 s. With zero, LOW and HIGH keys alternate from the start.
     */
    public Builder<K> aging(Duration aging) {
      Objects.requireNonNull(aging, "aging");
      if (aging.isNegative()) {
        throw new IllegalArgumentException("aging must not be negative: " + aging);
      }
      this.aging = aging;
      return this;
    }

    /**
     * Serves ready keys round-robin across the tenants this function names (for example a
     * resource's tenancy). Called once when a key enters the queue; must be fast and pure. Default:
     * one tenant, plain FIFO per priority.
     */
    public Builder<K> tenant(Function<? super K, String> tenant) {
      this.tenant = Objects.requireNonNull(tenant, "tenant");
      return this;
    }

    /** Callbacks for metrics; default {@link Listener#NONE}. */
    public Builder<K> listener(Listener listener) {
      this.listener = Objects.requireNonNull(listener, "listener");
      return this;
    }

    /** A new queue with these settings. */
    public WorkQueue<K> build() {
      return new WorkQueue<>(this);
    }
  }
}
