package io.setpoint.storage.engine;

import com.google.protobuf.ByteString;
import io.setpoint.api.v1.Fence;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Tenancy;
import io.setpoint.api.v1.Type;
import io.setpoint.storage.Backend.Page;
import io.setpoint.storage.Backend.WatchCursor;
import io.setpoint.storage.StorageException.Reason;
import io.setpoint.storage.StorageException;
import io.setpoint.storage.StoreSnapshot;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The store a backend is built on: the indexed multi-version resources, their watches, the fence
 * check and the remembered request ids, behind one writer's lock. The in-memory backend calls its
 * writes as they come; the replicated one as it applies the Raft log, so every member decides each
 * write alike.
 *
 * <p>Writes ({@link #write}, {@link #put}, {@link #delete}) each take the writer's lock, and {@link
 * #exclusively} holds it across several, so that no watch opens between them. Reads run
 * concurrently without the lock.
 */
public final class StoreEngine {
  private final Limits limits;
  private final WatchHub hub;
  /** Serialises writes with watch subscription, so a watch misses no event and sees none twice. */
  private final ReentrantLock writer = new ReentrantLock();
  /**
   * Replaced whole when a snapshot is restored; readers use whichever index they find, the writes
   * and the remembered requests are used under {@link #writer}.
   */
  private volatile StoreState state;
  private volatile boolean closed;

  /** An empty store within {@code limits}. */
  public StoreEngine(Limits limits) {
    this.limits = limits;
    this.hub = new WatchHub(limits);
    this.state = new StoreState(new ResourceIndex(limits), new AppliedRequests(), hub);
  }

  // ---- writes

  /** Runs {@code writes} holding the writer's lock, and answers what it answers. */
  public <T> T exclusively(Supplier<T> writes) {
    writer.lock();
    try {
      return writes.get();
    } finally {
      writer.unlock();
    }
  }

  /**
   * Applies a compare-and-swap write (see {@link io.setpoint.storage.Backend#writeCas}) unless
   * {@code requestId} names one already applied to the same resource: {@code WRITTEN} or {@code
   * REPEATED}.
   *
   * @throws StorageException when the fence or the compare-and-swap refuses it
   */
  public Result write(Resource resource, Fence fence, String requestId) {
    writer.lock();
    try {
      return state.write(resource, fence, requestId);
    } finally {
      writer.unlock();
    }
  }

  /**
   * Applies a blind write decided over what is stored now (see {@link
   * io.setpoint.storage.Backend#putAsync}): {@code STORED}, {@code UNCHANGED} (answering what is
   * stored) or {@code REPEATED}.
   *
   * @throws StorageException when the fence refuses it, or the stored state needs the caller's
   *     decision ({@code UNDECIDED}, {@code GROUP_VERSION_MISMATCH})
   */
  public Result put(Resource resource, Fence fence, String requestId, String uid, String generation) {
    writer.lock();
    try {
      return state.put(resource, fence, requestId, uid, generation);
    } finally {
      writer.unlock();
    }
  }

  /**
   * Applies a compare-and-swap delete (see {@link io.setpoint.storage.Backend#deleteCas}): {@code
   * DELETED} (answering what it deleted), {@code NOTHING_DELETED} or {@code REPEATED}.
   *
   * @throws StorageException when the fence or the compare-and-swap refuses it
   */
  public Result delete(ID id, String version, Fence fence, String requestId) {
    writer.lock();
    try {
      return state.delete(id, version, fence, requestId);
    } finally {
      writer.unlock();
    }
  }

  /** Whether {@code fence} fences anything: the empty fence (no lease) lets every write through. */
  public static boolean fences(Fence fence) {
    return Fences.isSet(fence);
  }

  // ---- reads (any thread)

  /** The live resource named by {@code id}; see {@link io.setpoint.storage.Backend#read}. */
  public Resource read(ID id) {
    return state.index.read(id);
  }

  /** One page of a listing; see {@link io.setpoint.storage.Backend#list}. */
  public Page list(Type type, Tenancy tenancy, String namePrefix, int limit, String pageToken) {
    return state.index.list(new Query(type, tenancy, namePrefix), limit, pageToken);
  }

  /** The live resources owned by exactly the incarnation {@code owner}. */
  public List<Resource> listByOwner(ID owner) {
    return state.index.listByOwner(owner);
  }

  /** The revision of the last applied change (0 when empty). */
  public long revision() {
    return state.index.revision();
  }

  /**
   * How many keys the store holds: its live resources and the deleted ones whose tombstones the
   * history still retains. Cheap to ask, and exact only while no write runs.
   */
  public long keyCount() {
    return state.index.chains.size();
  }

  /** Every live resource of the newest revision, copied beside the writer. */
  public StoreSnapshot snapshot() {
    return state.index.snapshotNow();
  }

  /**
   * What the write of {@code id} that carried {@code requestId} stored, if it is still remembered.
   * Under the writer's lock, so a write seen by a read (which may run while the writer is still
   * applying the writes around it) is found here too.
   */
  public Resource findRequest(ID id, String requestId) {
    writer.lock();
    try {
      return state.requests.find(requestId, id);
    } finally {
      writer.unlock();
    }
  }

  // ---- watches

  /** See {@link io.setpoint.storage.Backend#watch}. */
  public WatchCursor watch(Type type, Tenancy tenancy, String namePrefix, long sinceRevision) {
    return hub.open(writer, () -> state.index, this::checkOpen, new Query(type, tenancy, namePrefix), sinceRevision);
  }

  /** Ends every open watch with {@code reason}; the store goes on. */
  public void closeWatches(String reason) {
    writer.lock();
    try {
      hub.closeAll(reason);
    } finally {
      writer.unlock();
    }
  }

  /** Closes every watch and refuses new ones; the writes' callers decide whether to go on. */
  public void close() {
    writer.lock();
    try {
      closed = true;
      hub.closeAll("the store is shutting down");
    } finally {
      writer.unlock();
    }
  }

  /** @throws StorageException {@code UNAVAILABLE} once {@link #close} was called */
  public void checkOpen() {
    if (closed) {
      throw new StorageException(Reason.UNAVAILABLE, "the store is shut down");
    }
  }

  // ---- snapshots

  /** Calls {@code action} with every live resource, encoded, in key order; by the writer. */
  public void forEachLive(Consumer<ByteString> action) {
    state.index.forEachLive(action);
  }

  /**
   * What a snapshot of the store as it is now keeps; by the writer, which it does not hold up:
   * only references are copied, and the live resources are read later ({@link Image#forEachLive}).
   */
  public Image image() {
    StoreState current = state;
    ResourceIndex index = current.index;
    return new Image(index, index.revision(), current.requests.entries(), index.retainedHistory());
  }

  /**
   * Replaces the whole state with a snapshot's, and closes every watch telling it {@code because}:
   * its consumer resumes from its last revision while {@code history} retains it.
   *
   * @throws IllegalArgumentException when the snapshot's parts disagree (see {@link #checkRestore})
   */
  public void restore(
      long revision, List<ByteString> resources, List<Applied> remembered, RetainedHistory history, String because) {
    StoreState restored = new StoreState(
        IndexRestore.restore(limits, revision, resources, history), AppliedRequests.of(remembered), hub);
    writer.lock();
    try {
      state = restored;
      hub.closeAll(because);
    } finally {
      writer.unlock();
    }
  }

  /**
   * Checks that a store of exactly {@code resources} at {@code revision}, without history, can be
   * restored within {@code limits}.
   *
   * @throws IllegalArgumentException when a version is not a revision in 1..{@code revision}, or
   *     two resources share a key
   */
  public static void checkRestore(Limits limits, long revision, List<ByteString> resources) {
    IndexRestore.restore(limits, revision, resources, RetainedHistory.none(revision));
  }

  // ---- the values the facade takes and answers

  /**
   * What became of one write.
   *
   * @param effect what it did
   * @param revision the revision of its change; the store's revision when it changed nothing
   * @param resource what it stored or deleted, what is stored when it changed nothing, what a
   *     repeated write stored first; null when it deleted nothing
   */
  public record Result(Effect effect, long revision, Resource resource) {
    /** What a write did. */
    public enum Effect {
      /** A compare-and-swap write stored {@code resource}. */
      WRITTEN,
      /** A blind write stored {@code resource}. */
      STORED,
      /** A blind write changed nothing. */
      UNCHANGED,
      /** The write repeated an applied one; nothing was written again. */
      REPEATED,
      /** A delete deleted {@code resource}. */
      DELETED,
      /** A delete found nothing to delete. */
      NOTHING_DELETED
    }
  }

  /**
   * One remembered write: its request id and the resource it stored, encoded.
   *
   * @param requestId the request id the write carried
   * @param encoded the resource it stored (for a delete, one holding only the id), encoded
   */
  public record Applied(String requestId, ByteString encoded) {
    /** One remembered write of {@code stored}. */
    public Applied(String requestId, Resource stored) {
      this(requestId, stored.toByteString());
    }

    /** The resource the write stored, decoded. */
    public Resource stored() {
      return Entry.decode(encoded);
    }
  }

  /**
   * What a snapshot of the store keeps, as of {@link #revision()}: captured by the writer, its live
   * resources read from any thread later, from the version chains that later writes leave alone.
   */
  public static final class Image {
    private final ResourceIndex index;
    private final long revision;
    private final List<Applied> requests;
    private final RetainedHistory history;

    private Image(ResourceIndex index, long revision, List<Applied> requests, RetainedHistory history) {
      this.index = index;
      this.revision = revision;
      this.requests = requests;
      this.history = history;
    }

    /** The revision the snapshot is of. */
    public long revision() {
      return revision;
    }

    /** The writes with a request id the store remembered, oldest first. */
    public List<Applied> requests() {
      return requests;
    }

    /** The history the store retained. */
    public RetainedHistory history() {
      return history;
    }

    /**
     * Calls {@code action} with every resource live at {@link #revision()}, encoded, in key order;
     * whatever it received is only valid if this returns normally.
     *
     * @throws StorageException {@code COMPACTED} when writes cut the history that revision needs,
     *     before or during the walk
     */
    public void forEachLive(Consumer<ByteString> action) {
      index.forEachLiveAt(revision, action);
    }
  }

  /**
   * Bounds of an indexed store, by count and by bytes: whichever is reached first applies. Bytes are
   * the encoded (protobuf) size of the resources held, an estimate of the heap they take.
   *
   * @param history how many past revisions stay readable: older page tokens and watch resumes fail
   *     with {@code COMPACTED}
   * @param watchBuffer how many undelivered events a watch may hold before it is closed for falling
   *     behind (the client then resumes from its last revision)
   * @param historyBytes how many bytes of resources the retained revisions may hold; the oldest are
   *     compacted first to stay within it (the newest revision is always kept)
   * @param watchBufferBytes how many bytes of undelivered events one watch may hold before it is
   *     closed for falling behind (a single larger event is still delivered). Events are shared by
   *     every watch that receives them, so many watches of one type hold little more than one
   */
  public record Limits(int history, int watchBuffer, long historyBytes, long watchBufferBytes) {
    /**
     * 65,536 revisions of history and 16,384 buffered events per watch; an eighth of the maximum
     * heap for history and a sixteenth per watch buffer.
     */
    public static final Limits DEFAULT = new Limits(65_536, 16_384);

    public Limits {
      if (history < 1) {
        throw new IllegalArgumentException("history must be at least 1, was " + history);
      }
      if (watchBuffer < 1) {
        throw new IllegalArgumentException("watchBuffer must be at least 1, was " + watchBuffer);
      }
      if (historyBytes < 1) {
        throw new IllegalArgumentException("historyBytes must be at least 1, was " + historyBytes);
      }
      if (watchBufferBytes < 1) {
        throw new IllegalArgumentException("watchBufferBytes must be at least 1, was " + watchBufferBytes);
      }
    }

    /**
     * Counts as given, byte budgets sized to this JVM's maximum heap ({@link #defaultHistoryBytes()},
     * {@link #defaultWatchBufferBytes()}).
     */
    public Limits(int history, int watchBuffer) {
      this(history, watchBuffer, defaultHistoryBytes(), defaultWatchBufferBytes());
    }

    /** These limits with another history byte budget. */
    public Limits withHistoryBytes(long bytes) {
      return new Limits(history, watchBuffer, bytes, watchBufferBytes);
    }

    /** These limits with another per-watch byte budget. */
    public Limits withWatchBufferBytes(long bytes) {
      return new Limits(history, watchBuffer, historyBytes, bytes);
    }

    /** An eighth of the maximum heap ({@link Runtime#maxMemory()}): 64 MiB of a 512 MiB heap. */
    public static long defaultHistoryBytes() {
      return Runtime.getRuntime().maxMemory() / 8;
    }

    /** A sixteenth of the maximum heap: 32 MiB of a 512 MiB heap. */
    public static long defaultWatchBufferBytes() {
      return Runtime.getRuntime().maxMemory() / 16;
    }
  }

  /**
   * The history a store retains, in the form a snapshot carries it, so that a store restored from
   * the snapshot resumes watches from the same revisions as the store it was taken of: every change
   * after {@code floor}, oldest first, and the versions as of {@code floor} of the keys those changes
   * touched (every other key's version as of {@code floor} is its live one).
   *
   * @param floor the oldest revision a watch may resume after
   * @param bases the live versions as of {@code floor} of the keys that {@code changes} touch
   * @param changes every change after {@code floor}, one per revision, oldest first
   */
  public record RetainedHistory(long floor, List<ByteString> bases, List<Change> changes) {
    /**
     * One retained change.
     *
     * @param revision the store revision of the change
     * @param encoded the resource written then, or the one deleted, encoded
     * @param deleted whether the change deleted the resource
     */
    public record Change(long revision, ByteString encoded, boolean deleted) {
      /** A change of {@code resource}. */
      public Change(long revision, Resource resource, boolean deleted) {
        this(revision, resource.toByteString(), deleted);
      }

      /** The resource written or deleted, decoded. */
      public Resource resource() {
        return Entry.decode(encoded);
      }
    }

    public RetainedHistory {
      bases = List.copyOf(bases);
      changes = List.copyOf(changes);
    }

    /** A history whose bases are {@code bases}, encoded now. */
    public static RetainedHistory of(long floor, List<Resource> bases, List<Change> changes) {
      return new RetainedHistory(floor, bases.stream().map(Resource::toByteString).toList(), changes);
    }

    /** No history: a store restored at {@code revision} resumes watches from there on. */
    public static RetainedHistory none(long revision) {
      return new RetainedHistory(revision, List.of(), List.of());
    }
  }

}
