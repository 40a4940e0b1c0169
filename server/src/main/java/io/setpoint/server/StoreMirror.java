package io.setpoint.server;

import io.setpoint.api.Tenancies;
import io.setpoint.api.Types;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Type;
import io.setpoint.api.v1.WatchEvent;
import io.setpoint.storage.Backend.WatchCursor;
import io.setpoint.storage.Backend;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An in-memory copy of every resource of one cluster-scoped type, kept current by a watch on the
 * store (an informer, without the controller runtime): lookups never touch the store, and a
 * change is seen as soon as the store publishes it. Values are decoded once, on change, and
 * looked up by a key of their own (a policy by its name, a token by its secret's hash).
 *
 * <p>If the watch fails (the store dropped it, or is briefly unavailable), the mirror lists the
 * type again and drops whatever the new snapshot no longer has. A {@link Listener} hears every
 * change, in the mirror's thread, in the order the store made them.
 */
final class StoreMirror<T> implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(StoreMirror.class);
  private static final Duration RETRY = Duration.ofMillis(200);

  private final Backend backend;
  private final Type type;
  private final Function<Resource, String> keyOf;
  private final Function<Resource, T> decode;
  private final Listener<T> listener;
  private final Map<String, T> byKey = new ConcurrentHashMap<>();
  /** The key each resource name is stored under; only the mirror's thread touches it. */
  private final Map<String, String> keyByName = new HashMap<>();
  private final CountDownLatch synced = new CountDownLatch(1);
  private volatile boolean closed;
  private volatile WatchCursor current;
  /** Signalled whenever a value arrives, for {@link #awaitKey}. */
  private final ReentrantLock arrivals = new ReentrantLock();
  private final Condition arrived = arrivals.newCondition();

  /**
   * Starts mirroring {@code type}; see {@link #awaitSynced}.
   *
   * @param decode turns a stored resource into the value to keep; may throw for data it cannot
   *     use, and the resource is then left out
   */
  public StoreMirror(Backend backend, Type type, Function<Resource, String> keyOf, Function<Resource, T> decode) {
    this(backend, type, keyOf, decode, Listener.none());
  }

  /** As above, telling {@code listener} of every value put or removed. */
  public StoreMirror(
      Backend backend, Type type, Function<Resource, String> keyOf, Function<Resource, T> decode, Listener<T> listener) {
    this.backend = backend;
    this.type = type;
    this.keyOf = keyOf;
    this.decode = decode;
    this.listener = listener;
    Thread.ofVirtual().name("setpoint-mirror-" + type.getKind().toLowerCase(java.util.Locale.ROOT)).start(this::run);
  }

  /** Hears the mirror's changes, in its thread; must not block for long. */
  public interface Listener<T> {
    /** {@code value} is now stored under {@code key}, replacing {@code previous} (null if none). */
    void put(String key, T previous, T value);

    /** {@code value}, stored under {@code key}, is gone. */
    void removed(String key, T value);

    /** A listener that ignores everything. */
    static <T> Listener<T> none() {
      return new Listener<>() {
        @Override
        public void put(String key, T previous, T value) {}

        @Override
        public void removed(String key, T value) {}
      };
    }
  }

  /** The value stored under {@code key}, or null. */
  public T get(String key) {
    return byKey.get(key);
  }

  /** Waits until the first snapshot has been copied; false if that took longer than {@code timeout}. */
  public boolean awaitSynced(Duration timeout) throws InterruptedException {
    return synced.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  /**
   * Waits until a value is stored under {@code key}: the store has it, but the watch that copies
   * it here may not have delivered it yet. False if it did not arrive within {@code timeout}.
   */
  public boolean awaitKey(String key, Duration timeout) throws InterruptedException {
    long left = timeout.toNanos();
    arrivals.lock();
    try {
      while (!byKey.containsKey(key)) {
        if (left <= 0) {
          return false;
        }
        left = arrived.awaitNanos(left);
      }
      return true;
    } finally {
      arrivals.unlock();
    }
  }

  private void run() {
    while (!closed) {
      try (WatchCursor watch = backend.watch(type, Tenancies.CLUSTER, "", 0)) {
        current = watch;
        if (!closed) {
          follow(watch);
        }
      } catch (InterruptedException e) {
        return;
      } catch (RuntimeException e) {
        if (closed) {
          return;
        }
        log.warn("the ACL view of {} lost its watch; listing again", Types.format(type), e);
        LockSupport.parkNanos(RETRY.toNanos());
      }
    }
  }

  private void follow(WatchCursor watch) throws InterruptedException {
    Set<String> snapshot = new HashSet<>();
    boolean inSnapshot = true;
    while (true) {
      WatchEvent event = watch.next();
      switch (event.getEventCase()) {
        case UPSERT -> {
          Resource resource = event.getUpsert().getResource();
          if (inSnapshot) {
            snapshot.add(resource.getId().getName());
          }
          put(resource);
        }
        case DELETE -> remove(event.getDelete().getResource().getId().getName());
        case END_OF_SNAPSHOT -> {
          inSnapshot = false;
          List<String> gone = keyByName.keySet().stream().filter(name -> !snapshot.contains(name)).toList();
          gone.forEach(this::remove);
          synced.countDown();
        }
        default -> {}
      }
    }
  }

  private void put(Resource resource) {
    String name = resource.getId().getName();
    T value;
    try {
      value = decode.apply(resource);
    } catch (RuntimeException e) {
      log.warn("ignoring {}: {}", name, e.getMessage());
      remove(name);
      return;
    }
    String key = keyOf.apply(resource);
    String previous = keyByName.put(name, key);
    if (previous != null && !previous.equals(key)) {
      T old = byKey.remove(previous);
      if (old != null) {
        listener.removed(previous, old);
      }
    }
    listener.put(key, byKey.put(key, value), value);
    arrivals.lock();
    try {
      arrived.signalAll();
    } finally {
      arrivals.unlock();
    }
  }

  private void remove(String name) {
    String key = keyByName.remove(name);
    if (key != null) {
      T old = byKey.remove(key);
      if (old != null) {
        listener.removed(key, old);
      }
    }
  }

  /** Stops following the store. */
  @Override
  public void close() {
    closed = true;
    WatchCursor watch = current;
    if (watch != null) {
      watch.close();
    }
  }
}
