package io.setpoint.storage.engine;

import com.google.protobuf.Any;
import io.setpoint.api.Ids;
import io.setpoint.api.Resources;
import io.setpoint.api.Types;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.storage.Page;
import io.setpoint.storage.StorageException;
import io.setpoint.storage.StorageException.Reason;
import io.setpoint.storage.StoreSnapshot;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.function.Consumer;

/**
 * The indexed, multi-version resource store that backends share: a sorted map of keys to version
 * chains, an owner index anchored to owner uids, and a bounded ring of recent changes.
 *
 * <p>One thread at a time may call the mutating methods ({@link #write}, {@link #delete}, {@link
 * #changesSince}); the caller serialises them (a lock in the memory backend, the Raft log in the
 * replicated one), which makes every outcome a deterministic function of the order of operations.
 * Reads run concurrently without locks: a listing reads every page at one revision by walking
 * version chains, and fails with {@code COMPACTED} if the history it needed was cut meanwhile.
 */
public final class ResourceIndex {
  /** Every key's version chain, in key order, for listings. */
  private final ConcurrentSkipListMap<String, Chain> chains = new ConcurrentSkipListMap<>();
  /**
   * The same chains by key, for the point lookups of every write and read: a hash probe instead of
   * a descent through the sorted map, whose string comparisons were the larger part of applying a
   * write to a store of tens of thousands of keys. Neither map changes when a key is updated, only
   * when one is added or its last tombstone leaves the history.
   */
  private final ConcurrentHashMap<String, Chain> heads = new ConcurrentHashMap<>();
  private final Map<String, Set<String>> childrenByOwnerUid = new ConcurrentHashMap<>();
  private final Entry[] history;
  private final long historyBytesMax;
  private int historyOldest;
  private int historySize;
  /** The encoded size of the resources of the entries in {@link #history}. */
  private long historyBytes;
  private volatile long revision;
  /** Reads at revisions below this may be wrong: their history was cut. */
  private volatile long floor;
  private static final int SNAPSHOT_ATTEMPTS = 5;

  public ResourceIndex(Limits limits) {
    this.history = new Entry[limits.history()];
    this.historyBytesMax = limits.historyBytes();
  }

  /**
   * A store holding exactly {@code resources}, as restored from a snapshot taken at {@code
   * revision} without its history: versions are kept as stored, and no history before {@code
   * revision} is retained, so a watch resume or a page token from an earlier revision fails with
   * {@code COMPACTED}.
   *
   * @throws IllegalArgumentException when a version is not a revision in 1..{@code revision}, or
   *     two resources share a key
   */
  public static ResourceIndex restore(Limits limits, long revision, Iterable<Resource> resources) {
    return restore(limits, revision, resources, RetainedHistory.none(revision));
  }

  /**
   * A store holding exactly {@code resources} at {@code revision}, as restored from a snapshot
   * taken then, with the history that snapshot retained: the state as of the history's floor is
   * rebuilt, then its changes are applied again in order, so that watches resume and reads go on
   * from the floor exactly as they did on the store the snapshot was taken of (as far as these
   * limits keep them).
   *
   * @throws IllegalArgumentException when the history and {@code resources} disagree: a version
   *     outside 1..{@code revision}, a key twice, a change that is not the next revision, or
   *     changes that do not end in {@code resources}
   */
  public static ResourceIndex restore(
      Limits limits, long revision, Iterable<Resource> resources, RetainedHistory history) {
    Set<String> changed = new HashSet<>();
    for (RetainedHistory.Change change : history.changes()) {
      changed.add(StoreKeys.of(change.resource().getId()));
    }
    ResourceIndex index = new ResourceIndex(limits);
    long floor = history.floor();
    for (Resource base : history.bases()) {
      index.restoreLive(base, floor);
    }
    List<Resource> changedLive = new ArrayList<>();
    for (Resource resource : resources) {
      if (changed.contains(StoreKeys.of(resource.getId()))) {
        changedLive.add(resource);
      } else {
        index.restoreLive(resource, floor);
      }
    }
    index.revision = floor;
    index.floor = floor;
    for (RetainedHistory.Change change : history.changes()) {
      index.reapply(change);
    }
    if (index.revision != revision) {
      throw new IllegalArgumentException("the history ends at revision " + index.revision + ", not " + revision);
    }
    long liveChanged = changed.stream().map(index::newest).filter(e -> e != null && !e.deleted).count();
    for (Resource resource : changedLive) {
      Entry head = index.newest(StoreKeys.of(resource.getId()));
      if (head == null || head.deleted || !head.resource.equals(resource)) {
        throw new IllegalArgumentException("the history does not end in " + Ids.format(resource.getId())
            + " at version " + resource.getVersion());
      }
    }
    if (liveChanged != changedLive.size()) {
      throw new IllegalArgumentException("the history ends in " + liveChanged + " live resources it changed, not "
          + changedLive.size());
    }
    return index;
  }

  /** Adds {@code resource}, whose version is at most {@code at}, as its key's only version. */
  private void restoreLive(Resource resource, long at) {
    long version;
    try {
      version = Long.parseLong(resource.getVersion());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("version of " + Ids.format(resource.getId()) + " is not a revision");
    }
    if (version < 1 || version > at) {
      throw new IllegalArgumentException(
          "version " + version + " of " + Ids.format(resource.getId()) + " is not in 1.." + at);
    }
    String key = StoreKeys.of(resource.getId());
    if (heads.containsKey(key)) {
      throw new IllegalArgumentException(Ids.format(resource.getId()) + " is restored twice");
    }
    put(null, new Entry(key, version, resource, false, null));
    indexOwner(key, resource);
  }

  /** Applies a retained change again, at the revision it was made. */
  private void reapply(RetainedHistory.Change change) {
    Resource resource = change.resource();
    if (change.revision() != revision + 1) {
      throw new IllegalArgumentException("change at revision " + change.revision() + " follows revision " + revision);
    }
    if (!change.deleted() && !resource.getVersion().equals(Long.toString(change.revision()))) {
      throw new IllegalArgumentException("the write at revision " + change.revision() + " stored version "
          + resource.getVersion());
    }
    String key = StoreKeys.of(resource.getId());
    Chain chain = heads.get(key);
    Entry head = chain == null ? null : chain.newest;
    Resource live = head == null || head.deleted ? null : head.resource;
    if (change.deleted() && live == null) {
      throw new IllegalArgumentException("the delete at revision " + change.revision() + " deletes nothing");
    }
    Entry entry = new Entry(key, change.revision(), resource, change.deleted(), head);
    put(chain, entry);
    if (live != null) {
      unindexOwner(key, live);
    }
    if (!change.deleted()) {
      indexOwner(key, resource);
    }
    commit(entry);
  }

  /**
   * The history this store retains, for a snapshot of its current revision; must be called by the
   * writer. Only references are copied, with one walk of the history: a few milliseconds at most.
   */
  public RetainedHistory retainedHistory() {
    List<RetainedHistory.Change> changes = new ArrayList<>(historySize);
    List<Resource> bases = new ArrayList<>();
    for (int i = 0; i < historySize; i++) {
      Entry e = history[(historyOldest + i) % history.length];
      changes.add(new RetainedHistory.Change(e.revision, e.resource, e.deleted));
      // A previous version at or before the floor makes this its key's oldest retained change.
      Entry before = e.previous();
      if (before != null && before.revision <= floor && !before.deleted) {
        bases.add(before.resource);
      }
    }
    return new RetainedHistory(floor, bases, changes);
  }

  /**
   * Calls {@code action} with every live resource, in key order. Must be called by the writer, so
   * that the set is that of one revision (for writing a snapshot).
   */
  public void forEachLive(Consumer<Resource> action) {
    for (Chain chain : chains.values()) {
      Entry head = chain.newest;
      if (!head.deleted) {
        action.accept(head.resource);
      }
    }
  }

  /**
   * Calls {@code action} with every resource live at {@code atRevision}, in key order, from any
   * thread while writes go on: each key's version chain is read as of that revision. Whatever
   * {@code action} received is only valid if this returns normally.
   *
   * @throws StorageException {@code COMPACTED} when history that revision needs was cut, before
   *     or during the walk
   */
  public void forEachLiveAt(long atRevision, Consumer<Resource> action) {
    checkRetained(atRevision);
    forEachLiveAt(chains, atRevision, entry -> action.accept(entry.resource));
  }

  /** The entries of {@code range} live at {@code at}, in key order, then a check that {@code at} was still readable. */
  private void forEachLiveAt(NavigableMap<String, Chain> range, long at, Consumer<Entry> action) {
    for (Chain chain : range.values()) {
      Entry visible = chain.newest.asOf(at);
      if (visible != null && !visible.deleted) {
        action.accept(visible);
      }
    }
    checkRetained(at);
  }

  /**
   * Every resource live at the newest revision, read beside the writer ({@link #forEachLiveAt}),
   * starting over at a newer revision when writes cut the history the walk needed.
   *
   * @throws StorageException {@code COMPACTED} when that happened {@value #SNAPSHOT_ATTEMPTS} times
   */
  public StoreSnapshot snapshotNow() {
    StorageException last = null;
    for (int attempt = 0; attempt < SNAPSHOT_ATTEMPTS; attempt++) {
      long at = revision;
      List<Resource> live = new ArrayList<>();
      try {
        forEachLiveAt(at, live::add);
        return new StoreSnapshot(at, live);
      } catch (StorageException e) {
        last = e;
      }
    }
    throw new StorageException(Reason.COMPACTED, "writes outran a copy of the store " + SNAPSHOT_ATTEMPTS
        + " times (" + last.getMessage() + "); try again when it is less busy, or keep more history");
  }

  /** The revision of the last applied change (0 when empty). */
  public long revision() {
    return revision;
  }

  /** The oldest revision still readable, and the oldest a watch may resume after. */
  public long floor() {
    return floor;
  }

  // ---- writes (single writer) ----

  /** Applies a CAS write; see {@link io.setpoint.storage.Backend#writeCas}. */
  public Entry write(Resource resource) {
    String probe = StoreKeys.of(resource.getId());
    Chain chain = heads.get(probe);
    Entry head = chain == null ? null : chain.newest;
    // History holds one entry per revision: let them all share the key string already stored.
    String key = head != null ? head.key : probe;
    Resource live = head == null || head.deleted ? null : head.resource;
    if (live != null && !live.getId().getUid().equals(resource.getId().getUid())) {
      throw new StorageException(
          Reason.WRONG_UID,
          Ids.format(Ids.withoutUid(resource.getId())) + " exists with uid " + live.getId().getUid());
    }
    if (!(live == null ? "" : live.getVersion()).equals(resource.getVersion())) {
      throw new StorageException(
          Reason.CAS_FAILURE,
          live == null
              ? "version " + resource.getVersion() + " does not match: the resource does not exist"
              : "version " + resource.getVersion() + " does not match the stored version " + live.getVersion());
    }
    long next = revision + 1;
    Resource stored = live == null
        ? Resources.withVersion(resource, Long.toString(next))
        : sharingWith(live, resource, Long.toString(next));
    Entry entry = new Entry(key, next, stored, false, head);
    put(chain, entry);
    if (live == null) {
      indexOwner(key, stored);
    } else if (!live.getOwner().equals(stored.getOwner())) {
      unindexOwner(key, live);
      indexOwner(key, stored);
    }
    commit(entry);
    return entry;
  }

  /**
   * Applies a blind write decided over what is stored now; see {@link
   * io.setpoint.storage.Backend#putAsync}.
   *
   * @return the new entry, or null when the write changes nothing
   * @throws StorageException {@code UNDECIDED} when the stored state needs the caller's decision;
   *     {@code GROUP_VERSION_MISMATCH} when the resource is stored under another group version
   */
  public Entry put(Resource input, String uid, String generation) {
    Chain chain = heads.get(StoreKeys.of(input.getId()));
    Entry head = chain == null ? null : chain.newest;
    Resource live = head == null || head.deleted ? null : head.resource;
    if (live != null) {
      checkGroupVersion(input.getId(), live);
    }
    Resource next = BlindWriteRule.over(live, input, uid, generation);
    return next == live ? null : write(next);
  }

  /**
   * {@code resource} at {@code version}, holding {@code live}'s objects where they are equal: its id,
   * owner and generation, and its data's type URL. The history keeps tens of thousands of versions,
   * and each held its own copies of the same strings, parsed afresh from its write, for every young
   * collection to copy until they reached the old generation.
   */
  private static Resource sharingWith(Resource live, Resource resource, String version) {
    Any data = resource.hasData() ? resource.getData() : null;
    String typeUrl = live.hasData() ? live.getData().getTypeUrl() : null;
    // Rebuilt only where that saves a string: an equal URL that is not already the same object.
    if (data != null && typeUrl != null && data.getTypeUrl() != typeUrl && data.getTypeUrl().equals(typeUrl)) {
      data = data.toBuilder().setTypeUrl(typeUrl).build();
    }
    return Resources.of(equalOr(live.getId(), resource.getId()),
        resource.hasOwner() ? equalOr(live.getOwner(), resource.getOwner()) : null, version,
        equalOr(live.getGeneration(), resource.getGeneration()), resource.getMetadataMap(), resource.getStatusMap(), data);
  }

  /** {@code kept} when it equals {@code fresh}, else {@code fresh}. */
  private static <T> T equalOr(T kept, T fresh) {
    return kept.equals(fresh) ? kept : fresh;
  }

  /**
   * Applies a CAS delete; see {@link io.setpoint.storage.Backend#deleteCas}.
   *
   * @return the tombstone, or null when nothing matched
   */
  public Entry delete(ID id, String version) {
    String key = StoreKeys.of(id);
    Chain chain = heads.get(key);
    Entry head = chain == null ? null : chain.newest;
    if (head == null || head.deleted) {
      return null;
    }
    Resource live = head.resource;
    if (!id.getUid().isEmpty() && !id.getUid().equals(live.getId().getUid())) {
      return null;
    }
    checkGroupVersion(id, live);
    if (!version.isEmpty() && !version.equals(live.getVersion())) {
      throw new StorageException(
          Reason.CAS_FAILURE,
          "version " + version + " does not match the stored version " + live.getVersion());
    }
    Entry tombstone = new Entry(head.key, revision + 1, live, true, head);
    put(chain, tombstone);
    unindexOwner(key, live);
    commit(tombstone);
    return tombstone;
  }

  /**
   * Every retained change after {@code since} that {@code query} selects, oldest first. Must be
   * called by the writer (it reads the history ring).
   *
   * @param since a revision, unsigned (the API's {@code uint64}: 2^64-1 arrives as -1)
   * @throws StorageException {@code COMPACTED} when changes after {@code since} are no longer all
   *     retained; {@code FUTURE_REVISION} when {@code since} is after this store's revision
   */
  public List<Entry> changesSince(long since, Query query) {
    if (Long.compareUnsigned(since, revision) > 0) {
      // Resuming there would skip whatever this store commits up to it: refuse, as a page token
      // from the future is refused.
      throw new StorageException(Reason.FUTURE_REVISION, "revision " + Long.toUnsignedString(since)
          + " is ahead of this store, which is at revision " + revision
          + "; resume from the id of an event this store sent, or watch afresh");
    }
    if (since < floor) {
      throw compacted("since_revision " + since, floor);
    }
    List<Entry> out = new ArrayList<>();
    for (int i = 0; i < historySize; i++) {
      Entry e = history[(historyOldest + i) % history.length];
      if (e.revision > since && query.matches(e.resource)) {
        out.add(e);
      }
    }
    return out;
  }

  private void commit(Entry entry) {
    revision = entry.revision;
    if (historySize == history.length) {
      compactOldest();
    }
    history[(historyOldest + historySize++) % history.length] = entry;
    historyBytes += bytes(entry);
    // The newest change always stays, however large, so a watch can still resume just before it.
    while (historyBytes > historyBytesMax && historySize > 1) {
      compactOldest();
    }
  }

  /** Drops the oldest change from the history; reads before its revision become {@code COMPACTED}. */
  private void compactOldest() {
    Entry evicted = history[historyOldest];
    history[historyOldest] = null;
    historyOldest = (historyOldest + 1) % history.length;
    historySize--;
    historyBytes -= bytes(evicted);
    // Publish the new floor before cutting, so a reader that finds a cut chain also sees the floor.
    floor = evicted.revision;
    evicted.cutHistory();
    Chain chain = evicted.deleted ? heads.get(evicted.key) : null;
    if (chain != null && chain.newest == evicted) {
      chains.remove(evicted.key, chain);
      heads.remove(evicted.key, chain);
    }
  }

  /** What an entry counts against the history's byte budget (memoized by protobuf). */
  private static long bytes(Entry entry) {
    return entry.resource.getSerializedSize();
  }

  /** How many changes the history holds (for tests). */
  int historySize() {
    return historySize;
  }

  /** The encoded bytes of the resources the history holds (for tests). */
  long historyBytes() {
    return historyBytes;
  }

  /** Makes {@code head} its key's newest entry: in {@code chain}, or in a new one for a new key. */
  private void put(Chain chain, Entry head) {
    if (chain != null) {
      chain.newest = head;
      return;
    }
    Chain added = new Chain(head);
    chains.put(head.key, added);
    heads.put(head.key, added);
  }

  private void indexOwner(String key, Resource resource) {
    if (resource.hasOwner()) {
      childrenByOwnerUid
          .computeIfAbsent(resource.getOwner().getUid(), uid -> ConcurrentHashMap.newKeySet())
          .add(key);
    }
  }

  private void unindexOwner(String key, Resource resource) {
    if (resource.hasOwner()) {
      childrenByOwnerUid.computeIfPresent(
          resource.getOwner().getUid(),
          (uid, keys) -> {
            keys.remove(key);
            return keys.isEmpty() ? null : keys;
          });
    }
  }

  // ---- reads (any thread) ----

  /** The live resource named by {@code id}; see {@link io.setpoint.storage.Backend#read}. */
  public Resource read(ID id) {
    Entry head = newest(StoreKeys.of(id));
    if (head == null
        || head.deleted
        || (!id.getUid().isEmpty() && !id.getUid().equals(head.resource.getId().getUid()))) {
      throw new StorageException(Reason.NOT_FOUND, Ids.format(id) + " not found");
    }
    checkGroupVersion(id, head.resource);
    return head.resource;
  }

  /** One page of a listing; see {@link io.setpoint.storage.Backend#list}. */
  public Page list(Query query, int limit, String pageToken) {
    String prefix = query.rangePrefix();
    PageToken token = pageToken.isEmpty() ? null : PageToken.decode(pageToken, prefix);
    long at = token == null ? revision : token.revision();
    if (at > revision) {
      throw new StorageException(
          Reason.BAD_PAGE_TOKEN, "page_token reads at revision " + at + ", which this store has not reached");
    }
    NavigableMap<String, Chain> range =
        token == null
            ? chains.subMap(prefix, true, StoreKeys.rangeEnd(prefix), false)
            : chains.subMap(token.lastKey(), false, StoreKeys.rangeEnd(prefix), false);
    List<Resource> page = new ArrayList<>();
    String lastKey = null;
    boolean more = false;
    for (Map.Entry<String, Chain> e : range.entrySet()) {
      Entry visible = e.getValue().newest.asOf(at);
      if (visible == null || visible.deleted || !query.matches(visible.resource)) {
        continue;
      }
      if (limit > 0 && page.size() == limit) {
        more = true;
        break;
      }
      page.add(visible.resource);
      lastKey = e.getKey();
    }
    checkRetained(at);
    String next = more ? new PageToken(at, lastKey).encode() : "";
    return new Page(page, next, at);
  }

  /**
   * Every resource {@code query} selects as of {@code atRevision}, as entries, in key order.
   *
   * @throws StorageException {@code COMPACTED} when that revision is no longer readable
   */
  public List<Entry> snapshot(Query query, long atRevision) {
    String prefix = query.rangePrefix();
    List<Entry> out = new ArrayList<>();
    forEachLiveAt(chains.subMap(prefix, true, StoreKeys.rangeEnd(prefix), false), atRevision, entry -> {
      if (query.matches(entry.resource)) {
        out.add(entry);
      }
    });
    return out;
  }

  /** The live resources owned by exactly the incarnation {@code owner}. */
  public List<Resource> listByOwner(ID owner) {
    Set<String> keys = childrenByOwnerUid.get(owner.getUid());
    if (keys == null) {
      return List.of();
    }
    List<String> sorted = new ArrayList<>(keys);
    sorted.sort(null);
    List<Resource> out = new ArrayList<>(sorted.size());
    for (String key : sorted) {
      Entry head = newest(key);
      // Anchored to the owner's uid alone: an owner rewritten under another group version is the
      // same incarnation and keeps its children.
      if (head != null && !head.deleted && head.resource.getOwner().getUid().equals(owner.getUid())) {
        out.add(head.resource);
      }
    }
    return out;
  }

  /** The newest entry of {@code key}, or null when the store holds none. */
  private Entry newest(String key) {
    Chain chain = heads.get(key);
    return chain == null ? null : chain.newest;
  }

  private void checkRetained(long at) {
    if (at < floor) {
      throw compacted("revision " + at, floor);
    }
  }

  private static StorageException compacted(String what, long floor) {
    return new StorageException(
        Reason.COMPACTED,
        what + " is older than the retained history (oldest is " + floor + "); list or watch afresh");
  }

  private static void checkGroupVersion(ID id, Resource stored) {
    if (!id.getType().getGroupVersion().equals(stored.getId().getType().getGroupVersion())) {
      throw new StorageException(
          Reason.GROUP_VERSION_MISMATCH,
          Ids.format(Ids.withoutUid(id))
              + " is stored as "
              + Types.format(stored.getId().getType())
              + ", not "
              + Types.format(id.getType()));
    }
  }

  /**
   * One key's versions: its newest entry, from which older ones chain back. Updating a key swaps
   * the newest entry here; readers that found the chain in either map see the swap.
   */
  private static final class Chain {
    volatile Entry newest;

    Chain(Entry newest) {
      this.newest = newest;
    }
  }
}
