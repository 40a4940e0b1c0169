package io.setpoint.storage.engine;

import com.google.protobuf.ByteString;
import io.setpoint.api.Ids;
import io.setpoint.api.Resources;
import io.setpoint.api.Types;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.WatchEvent;
import io.setpoint.storage.Backend.Page;
import io.setpoint.storage.StorageException.Reason;
import io.setpoint.storage.StorageException;
import io.setpoint.storage.StoreSnapshot;
import io.setpoint.storage.engine.StoreEngine.Limits;
import io.setpoint.storage.engine.StoreEngine.RetainedHistory;
import io.setpoint.storage.engine.VersionChains.Chain;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.function.Consumer;

/**
 * The indexed, multi-version resource store: version chains by key ({@link VersionChains}), an
 * owner index anchored to owner uids ({@link OwnerIndex}), and a bounded ring of recent changes
 * ({@link HistoryRing}).
 *
 * <p>One thread at a time may call the mutating methods ({@link #write}, {@link #put}, {@link
 * #delete}, {@link #changesSince}); the caller serialises them (the engine's writer lock, under
 * which the replicated backend applies the Raft log), which makes every outcome a deterministic
 * function of the order of operations. Reads run concurrently without locks: a listing reads every
 * page at one revision by walking version chains, and fails with {@code COMPACTED} if the history
 * it needed was cut meanwhile.
 */
final class ResourceIndex {
  private static final int SNAPSHOT_ATTEMPTS = 5;

  final VersionChains chains;
  final OwnerIndex owners = new OwnerIndex();
  private final HistoryRing history;
  private volatile long revision;

  ResourceIndex(Limits limits) {
    this(limits, 0);
  }

  /** An empty index sized for {@code expectedKeys}, as a restore knows it will hold. */
  ResourceIndex(Limits limits, int expectedKeys) {
    this.chains = new VersionChains(expectedKeys);
    this.history = new HistoryRing(limits, chains::removeIfNewest);
  }

  /** Starts a restored index at {@code floor}, before the retained changes after it are applied again. */
  void startAt(long floor) {
    revision = floor;
    history.startAt(floor);
  }

  /**
   * The history this store retains, for a snapshot of its current revision; must be called by the
   * writer. Only references are copied, with one walk of the history.
   */
  RetainedHistory retainedHistory() {
    return history.retained();
  }

  /**
   * Calls {@code action} with every live resource, encoded, in key order. Must be called by the
   * writer, so that the set is that of one revision (for writing a snapshot).
   */
  void forEachLive(Consumer<ByteString> action) {
    for (Chain chain : chains.all()) {
      Entry head = chain.newest;
      if (!head.deleted) {
        action.accept(head.encoded());
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
  void forEachLiveAt(long atRevision, Consumer<ByteString> action) {
    checkRetained(atRevision);
    forEachLiveAt(chains.all(), atRevision, entry -> action.accept(entry.encoded()));
  }

  /** The entries of {@code range} live at {@code at}, in key order, then a check that {@code at} was still readable. */
  private void forEachLiveAt(Iterable<Chain> range, long at, Consumer<Entry> action) {
    for (Chain chain : range) {
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
  StoreSnapshot snapshotNow() {
    StorageException last = null;
    for (int attempt = 0; attempt < SNAPSHOT_ATTEMPTS; attempt++) {
      long at = revision;
      List<ByteString> live = new ArrayList<>();
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
  long revision() {
    return revision;
  }

  /** The oldest revision still readable, and the oldest a watch may resume after. */
  long floor() {
    return history.floor();
  }

  // ---- writes (single writer) ----

  /**
   * One change applied: its entry, and the resource it stored or deleted, decoded, for the caller
   * to answer and tell the watchers without decoding the entry again.
   */
  record Written(Entry entry, Resource resource) {}

  /** Applies a CAS write; see {@link io.setpoint.storage.Backend#writeCas}. */
  Written write(Resource resource) {
    String probe = StoreKeys.of(resource.getId());
    Chain chain = chains.get(probe);
    Entry head = chain == null ? null : chain.newest;
    Resource live = head == null || head.deleted ? null : head.resource();
    return write(resource, probe, chain, head, live);
  }

  /** {@link #write(Resource)} over the chain of {@code probe}, whose newest entry and live resource were read. */
  private Written write(Resource resource, String probe, Chain chain, Entry head, Resource live) {
    // History holds one entry per revision: let them all share the key string already stored.
    String key = head != null ? head.key : probe;
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
    Resource stored = Resources.withVersion(resource, Long.toString(next));
    Entry entry = Entry.of(key, next, stored, false, head);
    chains.put(chain, entry);
    if (live == null) {
      owners.add(key, stored);
    } else if (!live.getOwner().equals(stored.getOwner())) {
      owners.remove(key, live);
      owners.add(key, stored);
    }
    commit(entry);
    return new Written(entry, stored);
  }

  /**
   * Applies a blind write decided over what is stored now; see {@link
   * io.setpoint.storage.Backend#putAsync}.
   *
   * @return the new entry, or null when the write changes nothing
   * @throws StorageException {@code UNDECIDED} when the stored state needs the caller's decision;
   *     {@code GROUP_VERSION_MISMATCH} when the resource is stored under another group version
   */
  Written put(Resource input, String uid, String generation) {
    String probe = StoreKeys.of(input.getId());
    Chain chain = chains.get(probe);
    Entry head = chain == null ? null : chain.newest;
    Resource live = head == null || head.deleted ? null : head.resource();
    if (live != null) {
      checkGroupVersion(input.getId(), live);
    }
    Resource next = BlindWriteRule.over(live, input, uid, generation);
    return next == live ? null : write(next, probe, chain, head, live);
  }

  /**
   * Applies a CAS delete; see {@link io.setpoint.storage.Backend#deleteCas}.
   *
   * @return the tombstone, or null when nothing matched
   */
  Written delete(ID id, String version) {
    String key = StoreKeys.of(id);
    Chain chain = chains.get(key);
    Entry head = chain == null ? null : chain.newest;
    if (head == null || head.deleted) {
      return null;
    }
    Resource live = head.resource();
    if (!id.getUid().isEmpty() && !id.getUid().equals(live.getId().getUid())) {
      return null;
    }
    checkGroupVersion(id, live);
    if (!version.isEmpty() && !version.equals(live.getVersion())) {
      throw new StorageException(
          Reason.CAS_FAILURE,
          "version " + version + " does not match the stored version " + live.getVersion());
    }
    Entry tombstone = Entry.tombstone(revision + 1, head);
    chains.put(chain, tombstone);
    owners.remove(key, live);
    commit(tombstone);
    return new Written(tombstone, live);
  }

  /**
   * Every retained change after {@code since} that {@code query} selects, oldest first. Must be
   * called by the writer (it reads the history ring).
   *
   * @param since a revision, unsigned (the API's {@code uint64}: 2^64-1 arrives as -1)
   * @throws StorageException {@code COMPACTED} when changes after {@code since} are no longer all
   *     retained; {@code FUTURE_REVISION} when {@code since} is after this store's revision
   */
  List<WatchEvent> changesSince(long since, Query query) {
    if (Long.compareUnsigned(since, revision) > 0) {
      // Resuming there would skip whatever this store commits up to it: refuse, as a page token
      // from the future is refused.
      throw new StorageException(Reason.FUTURE_REVISION, "revision " + Long.toUnsignedString(since)
          + " is ahead of this store, which is at revision " + revision
          + "; resume from the id of an event this store sent, or watch afresh");
    }
    long floor = history.floor();
    if (since < floor) {
      throw compacted("since_revision " + since, floor);
    }
    return history.since(since, query);
  }

  /** Makes {@code entry}, the change after the current revision, the newest in the history. */
  void commit(Entry entry) {
    revision = entry.revision;
    history.add(entry);
  }

  /** How many changes the history holds (for tests). */
  int historySize() {
    return history.size();
  }

  /** The encoded bytes of the resources the history holds (for tests). */
  long historyBytes() {
    return history.bytes();
  }

  // ---- reads (any thread) ----

  /** The live resource named by {@code id}; see {@link io.setpoint.storage.Backend#read}. */
  Resource read(ID id) {
    Entry head = chains.newest(StoreKeys.of(id));
    Resource live = head == null || head.deleted ? null : head.resource();
    if (live == null || (!id.getUid().isEmpty() && !id.getUid().equals(live.getId().getUid()))) {
      throw new StorageException(Reason.NOT_FOUND, Ids.format(id) + " not found");
    }
    checkGroupVersion(id, live);
    return live;
  }

  /** One page of a listing; see {@link io.setpoint.storage.Backend#list}. */
  Page list(Query query, int limit, String pageToken) {
    String prefix = query.rangePrefix();
    PageToken token = pageToken.isEmpty() ? null : PageToken.decode(pageToken, prefix);
    long at = token == null ? revision : token.revision();
    if (at > revision) {
      throw new StorageException(
          Reason.BAD_PAGE_TOKEN, "page_token reads at revision " + at + ", which this store has not reached");
    }
    NavigableMap<String, Chain> range = token == null ? chains.range(prefix) : chains.after(token.lastKey(), prefix);
    List<Resource> page = new ArrayList<>();
    String lastKey = null;
    boolean more = false;
    for (Map.Entry<String, Chain> e : range.entrySet()) {
      Entry visible = e.getValue().newest.asOf(at);
      if (visible == null || visible.deleted) {
        continue;
      }
      Resource resource = visible.resource();
      if (!query.matches(resource)) {
        continue;
      }
      if (limit > 0 && page.size() == limit) {
        more = true;
        break;
      }
      page.add(resource);
      lastKey = e.getKey();
    }
    checkRetained(at);
    String next = more ? new PageToken(at, lastKey).encode() : "";
    return new Page(page, next, at);
  }

  /**
   * The entries of every resource in {@code query}'s key range live at {@code atRevision}, in key
   * order, still encoded: {@code query} itself is checked as each is decoded for delivery, so that
   * a watch's snapshot of a large store holds a reference per resource, not a decoded copy.
   *
   * @throws StorageException {@code COMPACTED} when that revision is no longer readable
   */
  List<Entry> snapshot(Query query, long atRevision) {
    List<Entry> out = new ArrayList<>();
    forEachLiveAt(chains.range(query.rangePrefix()).values(), atRevision, out::add);
    return out;
  }

  /** The live resources owned by exactly the incarnation {@code owner}. */
  List<Resource> listByOwner(ID owner) {
    List<String> sorted = owners.keys(owner.getUid());
    if (sorted.isEmpty()) {
      return List.of();
    }
    List<Resource> out = new ArrayList<>(sorted.size());
    for (String key : sorted) {
      Entry head = chains.newest(key);
      Resource live = head == null || head.deleted ? null : head.resource();
      // Anchored to the owner's uid alone: an owner rewritten under another group version is the
      // same incarnation and keeps its children.
      if (live != null && live.getOwner().getUid().equals(owner.getUid())) {
        out.add(live);
      }
    }
    return out;
  }

  private void checkRetained(long at) {
    long floor = history.floor();
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
}
