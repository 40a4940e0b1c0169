package io.setpoint.controller.queue;

import java.util.HashMap;
import java.util.function.Function;

/**
 * The keys that are ready to hand out, ordered by priority, tenant fairness and age.
 *
 * <p>One level per {@link Priority}. Within a level every tenant has a FIFO lane; the level keeps
 * its non-empty lanes in a ring and serves them round-robin, one entry per turn, so a tenant with
 * ten thousand ready keys delays another tenant's single key by at most one entry per active tenant.
 * Lower levels also keep all their entries in arrival order (the age list). Once the oldest entry of
 * a lower level has waited {@code agingNanos} it has aged, and aged entries take turns with the top
 * level: while both are ready, every other poll serves the oldest aged entry. A flood of aged startup
 * keys therefore delays a live key by at most one entry, and still gets half the throughput. Every
 * operation is O(1).
 *
 * <p>Without a tenant function all keys share one tenant and each level is a plain FIFO. Guarded by
 * the queue's lock.
 */
final class ReadyLanes<K> {

  /** A tenancy's lanes, one per level; dropped when no entry refers to it any more. */
  static final class Tenant<K> {
    final String name;
    final Lane<K>[] lanes;
    int refs;

    @SuppressWarnings("unchecked")
    Tenant(String name, int levels) {
      this.name = name;
      this.lanes = (Lane<K>[]) new Lane<?>[levels];
      for (int i = 0; i < levels; i++) {
        lanes[i] = new Lane<>();
      }
    }
  }

  /** One tenant's FIFO on one level, linked into that level's ring while non-empty. */
  static final class Lane<K> {
    Entry<K> head;
    Entry<K> tail;
    Lane<K> prev;
    Lane<K> next;
    boolean active;
  }

  /** A priority level: the ring of non-empty lanes and (below the top) the age list. */
  static final class Level<K> {
    Lane<K> first;
    Lane<K> last;
    Entry<K> oldest;
    Entry<K> newest;
  }

  private final Level<K>[] levels;
  private final long agingNanos;
  private final Function<? super K, String> tenantOf; // null: every key in `shared`
  private final HashMap<String, Tenant<K>> tenants = new HashMap<>();
  private final Tenant<K> shared;
  private int size;
  /** The last poll had both kinds ready and served the aged entry: the next such poll is top's. */
  private boolean agedServedLast;

  @SuppressWarnings("unchecked")
  ReadyLanes(int levelCount, long agingNanos, Function<? super K, String> tenantOf) {
    this.levels = (Level<K>[]) new Level<?>[levelCount];
    for (int i = 0; i < levelCount; i++) {
      levels[i] = new Level<>();
    }
    this.agingNanos = agingNanos;
    this.tenantOf = tenantOf;
    this.shared = tenantOf == null ? new Tenant<>("", levelCount) : null;
  }

  int size() {
    return size;
  }

  int tenantCount() {
    return tenantOf == null ? 1 : tenants.size();
  }

  /** The tenant of a new entry for {@code key}, counting the reference. */
  Tenant<K> acquire(K key) {
    if (tenantOf == null) {
      return shared;
    }
    String name = tenantOf.apply(key);
    if (name == null) {
      name = "";
    }
    Tenant<K> t = tenants.get(name);
    if (t == null) {
      t = new Tenant<>(name, levels.length);
      tenants.put(name, t);
    }
    t.refs++;
    return t;
  }

  /** Drops the reference of a forgotten entry; an unreferenced tenant is dropped (keys come and go). */
  void release(Tenant<K> t) {
    if (tenantOf != null && --t.refs == 0) {
      tenants.remove(t.name);
    }
  }

  /** Appends {@code e} to its tenant's lane on {@code level}. */
  void add(Entry<K> e, int level, long now) {
    Lane<K> lane = e.tenant.lanes[level];
    e.level = level;
    e.laneSince = now;
    e.next = null;
    e.prev = lane.tail;
    if (lane.tail == null) {
      lane.head = e;
      activate(levels[level], lane);
    } else {
      lane.tail.next = e;
    }
    lane.tail = e;
    if (level > 0) {
      Level<K> lv = levels[level];
      e.newer = null;
      e.older = lv.newest;
      if (lv.newest == null) {
        lv.oldest = e;
      } else {
        lv.newest.newer = e;
      }
      lv.newest = e;
    }
    size++;
  }

  /** Takes {@code e} out of its lane (and age list). */
  void remove(Entry<K> e) {
    int level = e.level;
    Lane<K> lane = e.tenant.lanes[level];
    if (e.prev == null) {
      lane.head = e.next;
    } else {
      e.prev.next = e.next;
    }
    if (e.next == null) {
      lane.tail = e.prev;
    } else {
      e.next.prev = e.prev;
    }
    e.prev = null;
    e.next = null;
    if (lane.head == null) {
      deactivate(levels[level], lane);
    }
    if (level > 0) {
      Level<K> lv = levels[level];
      if (e.older == null) {
        lv.oldest = e.newer;
      } else {
        e.older.newer = e.newer;
      }
      if (e.newer == null) {
        lv.newest = e.older;
      } else {
        e.newer.older = e.older;
      }
      e.older = null;
      e.newer = null;
    }
    e.level = -1;
    size--;
  }

  /** Moves a ready entry up to {@code level} if it sits lower. */
  void raise(Entry<K> e, int level, long now) {
    if (e.level > level) {
      remove(e);
      add(e, level, now);
    }
  }

  /** Removes and returns the entry to serve next, or null when none is ready. */
  Entry<K> poll(long now) {
    if (size == 0) {
      return null;
    }
    Level<K> top = levels[0];
    if (top.first != null) {
      Entry<K> aged = agedServedLast ? null : oldestAged(now);
      agedServedLast = aged != null;
      if (aged != null) {
        remove(aged);
        return aged;
      }
      return pollRing(top);
    }
    agedServedLast = false;
    for (int i = 1; i < levels.length; i++) {
      if (levels[i].first != null) {
        return pollRing(levels[i]);
      }
    }
    throw new IllegalStateException("size " + size + " but no lane has entries");
  }

  /** The oldest entry below the top level that has waited {@code agingNanos}, or null. */
  private Entry<K> oldestAged(long now) {
    for (int i = 1; i < levels.length; i++) {
      Entry<K> e = levels[i].oldest;
      if (e != null && now - e.laneSince >= agingNanos) {
        return e;
      }
    }
    return null;
  }

  /** Serves the head of the first lane of a level; a lane with more entries moves to the back. */
  private Entry<K> pollRing(Level<K> lv) {
    Lane<K> lane = lv.first;
    Entry<K> e = lane.head;
    remove(e);
    if (lane.active && lv.last != lane) {
      deactivate(lv, lane);
      activate(lv, lane);
    }
    return e;
  }

  private static <K> void activate(Level<K> lv, Lane<K> lane) {
    lane.active = true;
    lane.next = null;
    lane.prev = lv.last;
    if (lv.last == null) {
      lv.first = lane;
    } else {
      lv.last.next = lane;
    }
    lv.last = lane;
  }

  private static <K> void deactivate(Level<K> lv, Lane<K> lane) {
    lane.active = false;
    if (lane.prev == null) {
      lv.first = lane.next;
    } else {
      lane.prev.next = lane.next;
    }
    if (lane.next == null) {
      lv.last = lane.prev;
    } else {
      lane.next.prev = lane.prev;
    }
    lane.prev = null;
    lane.next = null;
  }

  /** Walks every structure and checks it against the entries' own links; for tests. */
  int checkAndCount() {
    int counted = 0;
    for (int i = 0; i < levels.length; i++) {
      Level<K> lv = levels[i];
      Lane<K> prevLane = null;
      for (Lane<K> lane = lv.first; lane != null; lane = lane.next) {
        check(lane.active && lane.prev == prevLane && lane.head != null, "ring of level " + i);
        Entry<K> prev = null;
        for (Entry<K> e = lane.head; e != null; e = e.next) {
          check(e.level == i && e.prev == prev && e.tenant.lanes[i] == lane, "lane entry " + e);
          check(e.pending == Entry.READY && !e.inFlight, "entry in a lane must be ready: " + e);
          prev = e;
          counted++;
        }
        check(lane.tail == prev, "lane tail");
        prevLane = lane;
      }
      check(lv.last == prevLane, "ring tail of level " + i);
      if (i > 0) {
        Entry<K> older = null;
        int aged = 0;
        for (Entry<K> e = lv.oldest; e != null; e = e.newer) {
          check(e.level == i && e.older == older, "age list of level " + i);
          check(older == null || e.laneSince - older.laneSince >= 0, "age order of level " + i);
          older = e;
          aged++;
        }
        check(lv.newest == older, "age list tail");
        int inLanes = 0;
        for (Lane<K> lane = lv.first; lane != null; lane = lane.next) {
          for (Entry<K> e = lane.head; e != null; e = e.next) {
            inLanes++;
          }
        }
        check(aged == inLanes, "age list holds every entry of level " + i);
      }
    }
    check(counted == size, "size " + size + " but counted " + counted);
    return counted;
  }

  static void check(boolean ok, String what) {
    if (!ok) {
      throw new IllegalStateException("work queue invariant broken: " + what);
    }
  }
}
