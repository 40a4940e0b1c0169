package io.setpoint.controller;

import io.setpoint.controller.loop.Locker;
import io.setpoint.controller.loop.Loop;
import io.setpoint.controller.loop.Loop.Change;
import io.setpoint.controller.queue.Priority;
import io.setpoint.controller.queue.Trigger;
import io.setpoint.controller.queue.WorkQueue;
import io.setpoint.controller.source.Source;
import io.setpoint.controller.time.Ticker;
import java.time.Duration;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one {@link Loop}: a lister thread lists every key each resync interval (and diffs the list
 * against the keys it believes exist, so vanished keys are handled too), the watch queues changes
 * as they come, and {@link Workers} (the engine of resource controllers) handle the keys: lock,
 * fetch the latest state, call the handler, release.
 */
final class LoopEngine<K, T> implements Runner {
  private static final Logger log = LoggerFactory.getLogger(LoopEngine.class);
  /** The single key of the lister's own queue, which times lists on the loop's ticker. */
  private static final String LIST = "list";

  private final Loop<K, T> loop;
  private final Faults faults;
  private final WorkQueue<K> queue;
  private final Workers<K> workers;
  /**
   * Times the lists: due every resync interval, at once on {@link #relist}, after a backoff when a
   * list fails. A work queue rather than a sleep so that a ManualTicker drives lists in tests.
   */
  private final WorkQueue<String> lists;
  private final AtomicBoolean stopping = new AtomicBoolean();
  private Thread lister;
  private AutoCloseable watch; // null while not watching; only the lister thread and stop() touch it

  // What the loop believes exists: the last list, plus keys the watch added since, minus the ones
  // it deleted. A key that leaves this set without a delete event is queued so its absence is seen.
  private final Object knownLock = new Object();
  private Set<K> known = new HashSet<>();
  private Set<K> addedDuringList; // non-null while a list call is out

  LoopEngine(Loop<K, T> loop, ControllerMetrics metrics, Ticker ticker, Faults faults) {
    this.loop = loop;
    this.faults = faults;
    WorkQueue.Builder<K> queueBuilder = WorkQueue.<K>builder()
        .name(loop.name())
        .ticker(ticker)
        .backoff(loop.backoffBase(), loop.backoffMax())
        .listener(metrics.queueListener());
    if (loop.rateLimit().isLimited()) {
      queueBuilder.rateLimit(loop.rateLimit().perSecond(), loop.rateLimit().burst());
    }
    this.queue = queueBuilder.build();
    this.lists = WorkQueue.<String>builder()
        .name(loop.name() + "-lists")
        .ticker(ticker)
        .backoff(loop.backoffBase(), loop.resync().compareTo(loop.backoffBase()) < 0 ? loop.backoffBase() : loop.resync())
        .build();
    // Lists resync every key, so the per-key resync of controllers is off.
    this.workers = new Workers<>(loop.name(), queue, metrics, ticker,
        new Workers.Policy(loop.handleTimeout(), Duration.ZERO, loop.maxRetries(), "key"), this::handle);
  }

  @Override
  public void start() {
    // The locker logs its own failures; here they are only counted.
    loop.locker().onFault((where, cause) -> faults.tally(loop.name(), where, "in the background", cause));
    lists.add(LIST, Trigger.startup(), Priority.HIGH);
    lister = Thread.ofVirtual().name("setpoint-" + loop.name() + "-lister").start(this::listLoop);
    workers.start(loop.concurrency());
    log.info("loop {} started ({} workers, resync every {})", loop.name(), loop.concurrency(), loop.resync());
  }

  @Override
  public void stop(Duration deadline) {
    if (!stopping.compareAndSet(false, true)) {
      return;
    }
    lists.shutDown();
    if (lister != null) {
      lister.interrupt();
      try {
        lister.join(deadline.toMillis() + 1);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    closeWatch();
    workers.stop(deadline);
    loop.locker().close();
    log.info("loop {} stopped", loop.name());
  }

  @Override
  public void onFailure(Consumer<Throwable> listener) {
    workers.onFailure(listener);
  }

  @Override
  public int queueDepth() {
    return queue.depth();
  }

  /** Lists now rather than at the next resync. */
  void relist() {
    lists.add(LIST, Trigger.manual("relist"), Priority.HIGH);
  }

  // --- listing ---------------------------------------------------------------------------------

  private void listLoop() {
    while (true) {
      WorkQueue.Item<String> item;
      try {
        item = lists.take();
      } catch (InterruptedException e) {
        return;
      }
      if (item == null) {
        return;
      }
      try {
        ensureWatching();
        // The next list is due one interval after this one began, whatever this one does; a
        // failure below only brings it forward (the earlier of the two times wins).
        lists.addAfter(LIST, loop.resync(), Trigger.resync(), Priority.HIGH);
        listOnce(listCause(item));
        lists.forget(LIST);
      } catch (InterruptedException e) {
        return;
      } catch (Throwable e) {
        // Errors too: this thread alone lists, and a loop that stopped listing would go stale unseen.
        faults.record(loop.name(), "list", "attempt " + (lists.retries(LIST) + 1)
            + " (the keys it knew stay as they were)", e, lists.retries(LIST) > 0);
        lists.addRateLimited(LIST, Trigger.retry("list failed: " + e.getMessage()));
      } finally {
        lists.done(LIST);
      }
    }
  }

  /** What the listed keys are traced to: startup, a manual relist, or else a resync. */
  private static Trigger listCause(WorkQueue.Item<String> item) {
    Trigger latest = item.triggers().get(item.triggers().size() - 1);
    return switch (latest.kind()) {
      case STARTUP, MANUAL -> latest;
      default -> Trigger.resync();
    };
  }

  private void listOnce(Trigger trigger) throws Exception {
    synchronized (knownLock) {
      addedDuringList = new HashSet<>();
    }
    Set<K> listed;
    try {
      listed = new HashSet<>(loop.listerWatcher().list());
    } catch (Exception e) {
      synchronized (knownLock) {
        addedDuringList = null;
      }
      throw e;
    }
    Set<K> vanished = new HashSet<>();
    synchronized (knownLock) {
      // A key the watch added while the list was out may be missing from it yet exist: keep it.
      Set<K> nowKnown = new HashSet<>(listed);
      nowKnown.addAll(addedDuringList);
      addedDuringList = null;
      for (K key : known) {
        if (!nowKnown.contains(key)) {
          vanished.add(key);
        }
      }
      known = nowKnown;
    }
    for (K key : listed) {
      queue.add(key, trigger, Priority.LOW);
    }
    // A deletion is a real change someone may wait for, unlike the bulk of an unchanged list.
    for (K key : vanished) {
      queue.add(key, Trigger.of(Trigger.Kind.RESYNC, "absent from the list"), Priority.HIGH);
    }
    log.debug("loop {}: listed {} key(s), {} vanished", loop.name(), listed.size(), vanished.size());
  }

  // --- watching --------------------------------------------------------------------------------

  private void ensureWatching() {
    if (watch != null || stopping.get()) {
      return;
    }
    Optional<Source<Change<K>>> source = loop.listerWatcher().watch();
    if (source.isEmpty()) {
      return;
    }
    try {
      watch = source.get().start(this::onChange);
    } catch (Throwable e) {
      // Lists still cover every key; the watch is tried again at the next list.
      faults.record(loop.name(), "watch", "starting (relying on lists until the next one)", e, false);
    }
  }

  private void closeWatch() {
    AutoCloseable w = watch;
    watch = null;
    if (w != null) {
      try {
        w.close();
      } catch (Exception e) {
        log.warn("loop {}: the watch failed to close", loop.name(), e);
      }
    }
  }

  private void onChange(Change<K> change) {
    K key = change.key();
    synchronized (knownLock) {
      if (change.kind() == Change.Kind.DELETED) {
        known.remove(key);
        if (addedDuringList != null) {
          addedDuringList.remove(key);
        }
      } else {
        known.add(key);
        if (addedDuringList != null) {
          addedDuringList.add(key);
        }
      }
    }
    queue.add(key, Trigger.event(change.kind().name().toLowerCase(java.util.Locale.ROOT) + " " + key),
        Priority.HIGH);
  }

  // --- handling --------------------------------------------------------------------------------

  private Result handle(WorkContext<K> ctx) throws Exception {
    K key = ctx.key();
    Locker<K> locker = loop.locker();
    if (!locker.tryAcquire(key)) {
      // Held by another instance: look again later rather than drop it, so the key is taken over
      // if that instance goes away.
      ctx.requeueReason("lock held elsewhere");
      log.debug("loop {}: {} is locked elsewhere; trying again in {}", loop.name(), key, locker.retryDelay());
      return Result.requeueAfter(locker.retryDelay());
    }
    boolean gone = false;
    try {
      // Fetched now, not when queued: the handler sees the latest state however long the key waited.
      Optional<T> current = loop.store().get(key);
      if (current.isPresent()) {
        return loop.handler().onPresent(ctx, current.get());
      }
      Result result = loop.handler().onAbsent(ctx, key);
      gone = true;
      return result;
    } finally {
      try {
        locker.release(key, gone);
      } catch (Exception e) {
        log.warn("loop {}: releasing the lock of {} failed", loop.name(), key, e);
      }
    }
  }
}
