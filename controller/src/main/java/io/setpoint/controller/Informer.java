package io.setpoint.controller;

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
import io.setpoint.controller.cache.Index;
import io.setpoint.controller.cache.ResourceEvent;
import io.setpoint.controller.time.Ticker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps one type's {@link TypeStore} in step with the server: fills it from a paged listing, then
 * follows a watch from the listing's revision, applying every change ({@link StoreWriter}) before
 * it hands the change to listeners. When the watch breaks it resumes from its last revision; when
 * that revision is gone it lists afresh and turns the difference into events, so listeners never
 * miss a delete. It may hold only some {@link HashRange}s of the type (a shard's), and moves to
 * other ranges by listing afresh; callers restrict it and wait on it through its {@link
 * InformerProgress}.
 */
final class Informer {
  private static final Logger log = LoggerFactory.getLogger(Informer.class);
  private static final Duration MAX_BACKOFF = Duration.ofSeconds(10);
  /**
   * Resources per page of a listing: large pages fill a cache fast, and even at the largest
   * resource the server takes (1 MiB) a page stays within what the client accepts in one message.
   */
  private static final int LIST_PAGE = 200;

  private final SetpointClient client;
  private final Type type;
  private final Scope scope;
  private final Ticker ticker;
  private final Consumer<Throwable> failed;
  private final InformerProgress progress;
  private final StoreWriter writer;
  /** The ranges the store reflects (all of the type when null); the informer thread's. */
  private List<HashRange> storeRanges;
  private Thread thread;

  Informer(SetpointClient client, Type type, Scope scope, TypeStore store, Consumer<ResourceEvent> listener,
      Ticker ticker, List<HashRange> ranges, Consumer<Throwable> failed) {
    this.failed = failed;
    this.ticker = ticker;
    this.client = client;
    this.type = type;
    this.scope = scope;
    this.progress = new InformerProgress(ranges);
    this.writer = new StoreWriter(store, listener, progress::advance);
  }

  void start() {
    thread = Thread.ofVirtual().name("setpoint-informer-" + Types.format(type)).start(this::run);
  }

  /** Waits until the first snapshot is in the store. */
  boolean awaitPrimed(Duration timeout) throws InterruptedException {
    return progress.awaitPrimed(timeout);
  }

  /**
   * Waits until the store reflects every change of this type up to {@code atLeast} (a write's
   * version); false on timeout.
   */
  boolean awaitRevision(long atLeast, Duration timeout) throws InterruptedException {
    return progress.awaitRevision(atLeast, timeout);
  }

  /**
   * Holds only {@code ranges} of the type from now on (all of it when null, nothing when empty);
   * returns the number to {@linkplain #awaitListed await}. Resources leaving the ranges are dropped
   * without a delete event: they still exist, in another shard.
   */
  long restrict(List<HashRange> ranges) {
    return progress.restrict(ranges);
  }

  /** Waits until the store holds what the restriction {@code gen} asked for; false on timeout. */
  boolean awaitListed(long gen, Duration timeout) throws InterruptedException {
    return progress.awaitListed(gen, timeout);
  }

  boolean isPrimed() {
    return progress.isPrimed();
  }

  void close() {
    progress.close();
    if (thread != null) {
      thread.interrupt();
    }
  }

  /** How the next watch starts. */
  private enum Start {
    /** List everything held afresh, then watch from the listing's revision. */
    LIST,
    /** Watch from the last revision applied. */
    RESUME,
    /** The ranges changed: drop what left, list only what was added, watch from the last revision. */
    RESHAPE
  }

  private void run() {
    Duration backoff = Duration.ofMillis(50);
    Start start = Start.LIST;
    while (!progress.closed()) {
      try {
        follow(start);
        if (progress.closed()) {
          return;
        }
        // New ranges, or the server ended the stream.
        start = progress.restart() ? Start.RESHAPE : Start.LIST;
        continue;
      } catch (SetpointException e) {
        if (progress.closed()) {
          return;
        }
        if (progress.restart()) {
          start = Start.RESHAPE;
          continue;
        }
        long revision = progress.revision();
        start = e.code() == Status.Code.OUT_OF_RANGE || revision == 0 ? Start.LIST : Start.RESUME;
        log.warn("watch of {} broke ({}); {} in {} ms", Types.format(type), e.getMessage(),
            start == Start.LIST ? "listing afresh" : "resuming after revision " + revision, backoff.toMillis());
      } catch (Throwable e) {
        // Errors too: this thread is the only one that moves the type's cache, for every
        // controller that shares it, so nothing may end it but closing.
        if (progress.closed()) {
          return;
        }
        if (progress.restart()) {
          start = Start.RESHAPE;
          continue;
        }
        start = Start.LIST;
        log.error("watch of {} failed; listing afresh in {} ms", Types.format(type), backoff.toMillis(), e);
        try {
          failed.accept(e);
        } catch (Throwable t) {
          log.warn("reporting the failure of the watch of {} failed", Types.format(type), t);
        }
      }
      try {
        ticker.sleep(backoff);
      } catch (InterruptedException e) {
        return;
      }
      backoff = backoff.multipliedBy(2).compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : backoff.multipliedBy(2);
    }
  }

  /** Follows one watch until it ends; a listing first brings the store up to the ranges held. */
  private void follow(Start start) {
    InformerProgress.Restriction restriction = progress.take();
    List<HashRange> held = restriction.ranges();
    long gen = restriction.generation();
    if (held != null && held.isEmpty()) {
      holdNothing(gen);
      return;
    }
    long since = switch (start) {
      case RESUME -> progress.revision();
      // Reshaping needs a store that reflects some ranges up to a revision; one that held nothing
      // may be far behind, so it lists afresh.
      case RESHAPE -> storeRanges != null && storeRanges.isEmpty() || progress.revision() == 0
          ? list(held, gen) : reshape(held, gen);
      case LIST -> list(held, gen);
    };
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
      progress.following(watch, gen);
      if (progress.closed() || progress.restart()) {
        return;
      }
      while (watch.hasNext()) {
        WatchEvent event = watch.next();
        switch (event.getEventCase()) {
          case UPSERT -> writer.upsert(event.getUpsert().getResource(), event.getRevision(), false,
              event.getTraceparent());
          case DELETE -> writer.delete(event.getDelete().getResource(), event.getRevision(), event.getTraceparent());
          case END_OF_SNAPSHOT -> progress.advance(event.getRevision());
          default -> log.warn("ignoring an unknown watch event for {}", Types.format(type));
        }
      }
    } finally {
      progress.followed();
    }
  }

  /**
   * Lists {@code held} afresh and makes the store match it; the watch then resumes after the
   * listing's revision. Returns that revision, or -1 when closed or restricted anew meanwhile.
   */
  private long list(List<HashRange> held, long gen) {
    Set<String> seen = new HashSet<>();
    long at = listRanges(held == null ? List.of() : held, seen);
    if (at < 0) {
      return -1;
    }
    writer.dropMissing(seen, held, at);
    progress.advance(at);
    holding(held, gen);
    return at;
  }

  /**
   * Moves the store from the ranges it holds to {@code held}: drops, without events, what left
   * them, and lists only what was added. Returns the revision to resume the watch from, the one
   * the store had reached: the watch replays what happened since in every range held, and what
   * the listing already shows newer is ignored (see {@link StoreWriter#upsert}). -1 when closed or
   * restricted anew meanwhile.
   */
  private long reshape(List<HashRange> held, long gen) {
    long from = progress.revision();
    List<HashRange> whole = List.of(Shards.range(0, Shards.SPACE));
    boolean narrowed = held != null && !minus(storeRanges == null ? whole : storeRanges, held).isEmpty();
    if (narrowed) {
      writer.dropOutside(held);
    }
    List<HashRange> added = minus(held == null ? whole : held, storeRanges == null ? whole : storeRanges);
    if (!added.isEmpty()) {
      long listedAt = listRanges(added, new HashSet<>());
      if (listedAt < 0) {
        return -1;
      }
      writer.replayThrough(listedAt);
    }
    holding(held, gen);
    return from;
  }

  private void holding(List<HashRange> held, long gen) {
    storeRanges = held;
    progress.holding(gen);
  }

  /**
   * Stores every resource in {@code ranges} (all when empty), page by page at one revision: pages
   * carry hundreds of resources a message, where a watch's snapshot carries one, so a large type
   * fills many times faster. Returns the revision, or -1 when closed or restricted anew meanwhile.
   */
  private long listRanges(List<HashRange> ranges, Set<String> seen) {
    ListRequest.Builder request = ListRequest.newBuilder()
        .setType(type)
        .setTenancy(Tenancies.wildcard(scope))
        .setPageSize(LIST_PAGE)
        .addAllHashRanges(ranges);
    long at = 0;
    String token = "";
    do {
      if (progress.closed() || progress.restart()) {
        return -1;
      }
      ListResponse page = client.list(request.setPageToken(token).build());
      at = at == 0 ? page.getRevision() : at;
      boolean initial = !isPrimed();
      for (Resource listed : page.getResourcesList()) {
        seen.add(Index.keyOf(listed.getId()));
        writer.upsert(listed, at, initial, "");
      }
      token = page.getNextPageToken();
    } while (!token.isEmpty());
    return at;
  }

  /** The parts of {@code from} outside every range of {@code remove}. */
  static List<HashRange> minus(List<HashRange> from, List<HashRange> remove) {
    List<HashRange> cuts = remove.stream().sorted(Comparator.comparingLong(HashRange::getStart)).toList();
    List<HashRange> out = new ArrayList<>();
    for (HashRange r : from) {
      long start = r.getStart();
      for (HashRange cut : cuts) {
        if (cut.getEnd() <= start || cut.getStart() >= r.getEnd()) {
          continue;
        }
        if (cut.getStart() > start) {
          out.add(Shards.range(start, cut.getStart()));
        }
        start = Math.max(start, cut.getEnd());
      }
      if (start < r.getEnd()) {
        out.add(Shards.range(start, r.getEnd()));
      }
    }
    return out;
  }

  /** Holds no range: empties the store quietly and waits for another restriction. */
  private void holdNothing(long gen) {
    writer.clear();
    holding(List.of(), gen);
    progress.awaitRestriction();
  }
}
