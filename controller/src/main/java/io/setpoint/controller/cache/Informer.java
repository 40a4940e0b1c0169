package io.setpoint.controller.cache;

import io.grpc.Status;
import io.setpoint.api.Shards;
import io.setpoint.api.Tenancies;
import io.setpoint.api.Types;
import io.setpoint.api.v1.HashRange;
import io.setpoint.api.v1.ListRequest;
import io.setpoint.api.v1.ListResponse;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Scope;
import io.setpoint.api.v1.Type;
import io.setpoint.api.v1.WatchEvent;
import io.setpoint.api.v1.WatchListRequest;
import io.setpoint.client.SetpointClient;
import io.setpoint.client.SetpointException;
import io.setpoint.client.Watch;
import io.setpoint.controller.predicate.ResourceEvent;
import io.setpoint.controller.time.Ticker;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps one type's {@link TypeStore} in step with the server: fills it from a paged listing, then
 * follows a watch from the listing's revision, applying every change before it hands the change
 * to listeners. When the watch breaks it resumes from its last revision; when that revision is
 * gone it lists afresh and turns the difference into events, so listeners never miss a delete. It may hold only some {@link
 * HashRange}s of the type (a shard's), and moves to other ranges by listing afresh.
 */
final class Informer {
  private static final Logger log = LoggerFactory.getLogger(Informer.class);
  private static final Duration MAX_BACKOFF = Duration.ofSeconds(10);
  /**
   * Resources per page of a listing: large pages fill a cache fast, and even at the largest
   * resource the server takes (1 MiB) a page stays within what the client accepts in one message.
   */
  private static final int LIST_PAGE = 200;

  private final Interner interner = new Interner();
  private final SetpointClient client;
  private final Type type;
  private final Scope scope;
  private final TypeStore store;
  private final Consumer<ResourceEvent> listener;
  private final Ticker ticker;
  private final CountDownLatch primed = new CountDownLatch(1);
  private volatile boolean closed;
  private volatile Watch current;
  /** The restriction {@link #current} follows; guarded by {@code progress}. */
  private long currentGeneration;
  private Thread thread;
  /** The newest revision applied to the store; written by the informer's thread only. */
  private volatile long revision;
  /** Notified after the store reflects a newer revision or ranges, and on a new restriction. */
  private final Object progress = new Object();
  /** The ranges held, all of the type when null; guarded by {@code progress}. */
  private List<HashRange> ranges;
  /** Counts restrictions; guarded by {@code progress}. */
  private long generation;
  /** The restriction whose listing the store reflects. */
  private volatile long listedGeneration;
  /** Set when the ranges changed and the watch must start over with them. */
  private volatile boolean restart;

  Informer(SetpointClient client, Type type, Scope scope, TypeStore store, Consumer<ResourceEvent> listener,
      Ticker ticker, List<HashRange> ranges) {
    this.ranges = ranges;
    this.ticker = ticker;
    this.client = client;
    this.type = type;
    this.scope = scope;
    this.store = store;
    this.listener = listener;
  }

  void start() {
    thread = Thread.ofVirtual().name("setpoint-informer-" + Types.format(type)).start(this::run);
  }

  /** Waits until the first snapshot is in the store. */
  boolean awaitPrimed(Duration timeout) throws InterruptedException {
    return primed.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
  }

  /**
   * Waits until the store reflects every change of this type up to {@code atLeast} (a write's
   * version); false on timeout.
   */
  boolean awaitRevision(long atLeast, Duration timeout) throws InterruptedException {
    if (revision >= atLeast) {
      return true;
    }
    long deadline = System.nanoTime() + timeout.toNanos();
    synchronized (progress) {
      while (revision < atLeast) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        TimeUnit.NANOSECONDS.timedWait(progress, left);
      }
    }
    return true;
  }

  /**
   * Holds only {@code ranges} of the type from now on (all of it when null, nothing when empty);
   * returns the number to {@linkplain #awaitListed await}. Resources leaving the ranges are dropped
   * without a delete event: they still exist, in another shard.
   */
  long restrict(List<HashRange> ranges) {
    long gen;
    Watch stale;
    synchronized (progress) {
      this.ranges = ranges == null ? null : List.copyOf(ranges);
      gen = ++generation;
      restart = true;
      progress.notifyAll();
      // Only a watch of older ranges: the thread may already follow the new ones.
      stale = currentGeneration < gen ? current : null;
    }
    if (stale != null) {
      stale.close();
    }
    return gen;
  }

  /** Waits until the store holds what the restriction {@code gen} asked for; false on timeout. */
  boolean awaitListed(long gen, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    synchronized (progress) {
      while (listedGeneration < gen) {
        long left = deadline - System.nanoTime();
        if (left <= 0 || closed) {
          return listedGeneration >= gen;
        }
        TimeUnit.NANOSECONDS.timedWait(progress, left);
      }
    }
    return true;
  }

  private void listed(long gen) {
    synchronized (progress) {
      listedGeneration = gen;
      progress.notifyAll();
    }
  }

  private void advance(long to) {
    if (to > revision) {
      revision = to;
      synchronized (progress) {
        progress.notifyAll();
      }
    }
  }

  boolean isPrimed() {
    return primed.getCount() == 0;
  }

  void close() {
    closed = true;
    Watch watch = current;
    if (watch != null) {
      watch.close();
    }
    if (thread != null) {
      thread.interrupt();
    }
    synchronized (progress) {
      progress.notifyAll();
    }
  }

  private void run() {
    Duration backoff = Duration.ofMillis(50);
    boolean relist = true;
    while (!closed) {
      try {
        follow(relist);
        if (closed) {
          return;
        }
        // New ranges, or the server ended the stream: list afresh.
        relist = true;
        continue;
      } catch (SetpointException e) {
        if (closed) {
          return;
        }
        if (restart) {
          relist = true;
          continue;
        }
        relist = e.code() == Status.Code.OUT_OF_RANGE || revision == 0;
        log.warn("watch of {} broke ({}); {} in {} ms", Types.format(type), e.getMessage(),
            relist ? "listing afresh" : "resuming after revision " + revision, backoff.toMillis());
      } catch (RuntimeException e) {
        if (closed) {
          return;
        }
        if (restart) {
          relist = true;
          continue;
        }
        relist = true;
        log.error("watch of {} failed; listing afresh in {} ms", Types.format(type), backoff.toMillis(), e);
      }
      try {
        ticker.sleep(backoff);
      } catch (InterruptedException e) {
        return;
      }
      backoff = backoff.multipliedBy(2).compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : backoff.multipliedBy(2);
    }
  }

  /** Follows one watch until it ends; a fresh listing first reconciles the store with it. */
  private void follow(boolean relist) {
    List<HashRange> held;
    long gen;
    synchronized (progress) {
      held = ranges;
      gen = generation;
      restart = false;
    }
    if (held != null && held.isEmpty()) {
      holdNothing(gen);
      return;
    }
    long since = relist ? list(held, gen) : revision;
    if (since < 0) {
      return;
    }
    WatchListRequest.Builder request = WatchListRequest.newBuilder()
        .setType(type)
        .setTenancy(Tenancies.wildcard(scope))
        .setSinceRevision(since);
    if (held != null) {
      request.addAllHashRanges(held);
    }
    try (Watch watch = client.watch(request.build())) {
      synchronized (progress) {
        current = watch;
        currentGeneration = gen;
      }
      if (closed || restart) {
        return;
      }
      while (watch.hasNext()) {
        WatchEvent event = watch.next();
        switch (event.getEventCase()) {
          case UPSERT -> upsert(interner.intern(event.getUpsert().getResource()), event.getRevision(), false);
          case DELETE -> delete(event.getDelete().getResource(), event.getRevision());
          case END_OF_SNAPSHOT -> advance(event.getRevision());
          default -> log.warn("ignoring an unknown watch event for {}", Types.format(type));
        }
      }
    } finally {
      current = null;
    }
  }

  /**
   * Lists {@code held} afresh, page by page at one revision, and makes the store match it; the
   * watch then resumes after that revision. Pages carry hundreds of resources per message, where a
   * watch's snapshot carries one, so a large type fills many times faster. Returns the listing's revision, or -1 when closed or restricted
   * anew meanwhile.
   */
  private long list(List<HashRange> held, long gen) {
    ListRequest.Builder request = ListRequest.newBuilder()
        .setType(type)
        .setTenancy(Tenancies.wildcard(scope))
        .setPageSize(LIST_PAGE);
    if (held != null) {
      request.addAllHashRanges(held);
    }
    Set<String> seen = new HashSet<>();
    long at = 0;
    String token = "";
    do {
      if (closed || restart) {
        return -1;
      }
      ListResponse page = client.list(request.setPageToken(token).build());
      at = at == 0 ? page.getRevision() : at;
      boolean initial = !isPrimed();
      for (Resource listed : page.getResourcesList()) {
        Resource resource = interner.intern(listed);
        seen.add(Keys.of(resource.getId()));
        upsert(resource, at, initial);
      }
      token = page.getNextPageToken();
    } while (!token.isEmpty());
    dropMissing(seen, held, at);
    advance(at);
    listed(gen);
    primed.countDown();
    return at;
  }

  private void upsert(Resource resource, long eventRevision, boolean initialSnapshot) {
    Resource previous = store.put(resource);
    advance(eventRevision);
    // The first snapshot is reconciled wholesale at startup; later snapshots only report changes.
    if (!initialSnapshot && (previous == null || !previous.getVersion().equals(resource.getVersion()))) {
      listener.accept(new ResourceEvent(ResourceEvent.Kind.UPSERT, previous, resource, eventRevision));
    }
  }

  private void delete(Resource resource, long eventRevision) {
    Resource previous = store.remove(Keys.of(resource.getId()));
    advance(eventRevision);
    listener.accept(new ResourceEvent(ResourceEvent.Kind.DELETE, previous, resource, eventRevision));
  }

  /**
   * After a fresh listing: everything cached but not listed was deleted meanwhile, or left the
   * ranges held (and is dropped quietly).
   */
  private void dropMissing(Set<String> listed, List<HashRange> held, long snapshotRevision) {
    for (String key : Set.copyOf(store.keys())) {
      if (!listed.contains(key)) {
        Resource gone = store.remove(key);
        if (gone != null && (held == null || Shards.contains(held, gone.getId()))) {
          listener.accept(new ResourceEvent(ResourceEvent.Kind.DELETE, gone, gone, snapshotRevision));
        }
      }
    }
  }

  /** Holds no range: empties the store quietly and waits for another restriction. */
  private void holdNothing(long gen) {
    for (String key : Set.copyOf(store.keys())) {
      store.remove(key);
    }
    listed(gen);
    primed.countDown();
    synchronized (progress) {
      while (!restart && !closed) {
        try {
          progress.wait();
        } catch (InterruptedException e) {
          return;
        }
      }
    }
  }
}
