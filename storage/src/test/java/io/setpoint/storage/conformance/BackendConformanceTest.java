package io.setpoint.storage.conformance;

import static io.setpoint.storage.conformance.Fixtures.CLUSTER;
import static io.setpoint.storage.conformance.Fixtures.DEFAULT_TENANCY;
import static io.setpoint.storage.conformance.Fixtures.GADGET;
import static io.setpoint.storage.conformance.Fixtures.NODE;
import static io.setpoint.storage.conformance.Fixtures.OTHER_GROUP_WIDGET;
import static io.setpoint.storage.conformance.Fixtures.WIDGET;
import static io.setpoint.storage.conformance.Fixtures.WIDGET_V2;
import static io.setpoint.storage.conformance.Fixtures.WILDCARD;
import static io.setpoint.storage.conformance.Fixtures.ZONE;
import static io.setpoint.storage.conformance.Fixtures.assertFails;
import static io.setpoint.storage.conformance.Fixtures.changed;
import static io.setpoint.storage.conformance.Fixtures.data;
import static io.setpoint.storage.conformance.Fixtures.id;
import static io.setpoint.storage.conformance.Fixtures.newUid;
import static io.setpoint.storage.conformance.Fixtures.ownedBy;
import static io.setpoint.storage.conformance.Fixtures.resource;
import static io.setpoint.storage.conformance.Fixtures.revision;
import static io.setpoint.storage.conformance.Fixtures.stored;
import static io.setpoint.storage.conformance.Fixtures.tenancy;
import static io.setpoint.storage.conformance.Fixtures.text;
import static io.setpoint.storage.conformance.Fixtures.withType;
import static io.setpoint.storage.conformance.Fixtures.withUid;
import static io.setpoint.storage.conformance.Fixtures.withoutUid;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import com.google.protobuf.Any;
import com.google.protobuf.Timestamp;
import io.setpoint.api.Types;
import io.setpoint.api.core.v1.Lease;
import io.setpoint.api.v1.Fence;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Tenancy;
import io.setpoint.api.v1.Type;
import io.setpoint.api.v1.WatchEvent;
import io.setpoint.storage.Backend.Page;
import io.setpoint.storage.Backend.WatchCursor;
import io.setpoint.storage.Backend;
import io.setpoint.storage.Consistency;
import io.setpoint.storage.Health;
import io.setpoint.storage.StorageException.Reason;
import io.setpoint.storage.StorageException;
import io.setpoint.storage.engine.StoreEngine.Limits;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The behaviour every {@link Backend} must have (SPEC section 4): CAS by version, uid immutability
 * and re-creation, owner references anchored to the owner uid, list and watch with every wildcard
 * combination, pagination over one snapshot, watch ordering, "readable after notified", resume by
 * revision, and no lost update under contention.
 *
 * <p>A backend passes by subclassing this class and implementing {@link #newBackend(Limits)}; the
 * suite uses nothing but the {@link Backend} SPI. Every test gets a fresh, empty backend; every
 * wait is bounded by {@link #timeout()}. The suite's {@code @BeforeEach} builds the backend before
 * any {@code @BeforeEach} of a subclass runs, and its {@code @AfterEach} closes it after theirs:
 * start shared infrastructure (a Raft cluster, a data directory) in {@code @BeforeAll} or in {@link
 * #newBackend(Limits)}, and release per-backend resources in {@link #closeBackend}.
 *
 * <p>Tests are named {@code group_behaviour} ({@code read_}, {@code casWrite_}, {@code casDelete_},
 * {@code listByOwner_}, {@code selection_}, {@code pagination_}, {@code watch_}, {@code resume_},
 * {@code watchClose_}, {@code concurrency_}) rather than grouped in {@code @Nested} classes:
 * Surefire's default includes silently skip {@code @Nested} classes declared in an abstract
 * superclass, so a backend module would pass a suite that never ran.
 */
public abstract class BackendConformanceTest {
  private final Deque<Backend> backends = new ArrayDeque<>();
  private final List<WatchCursor> watches = new ArrayList<>();
  private final List<ExecutorService> pools = new CopyOnWriteArrayList<>();

  /** The backend of the current test: fresh, empty, with {@link Limits#DEFAULT}. */
  protected Backend backend;

  /**
   * A new, empty, open backend with these limits. The suite builds small ones to check compaction
   * ({@code COMPACTED} for old page tokens and watch resumes), so the limits must be honoured.
   */
  protected abstract Backend newBackend(Limits limits);

  /** A new, empty, open backend with default limits. */
  protected Backend newBackend() {
    return newBackend(Limits.DEFAULT);
  }

  /** Releases a backend built by {@link #newBackend}; called exactly once for each. */
  protected void closeBackend(Backend backend) {
    backend.close();
  }

  /** The longest any single wait of the suite may take; raise it for slow backends. */
  protected Duration timeout() {
    return Fixtures.TIMEOUT;
  }

  @BeforeEach
  protected final void openBackend() {
    backend = open(newBackend());
  }

  @AfterEach
  protected final void closeEverything() {
    pools.forEach(ExecutorService::shutdownNow);
    watches.forEach(WatchCursor::close);
    while (!backends.isEmpty()) {
      closeBackend(backends.pop());
    }
  }

  /** Registers {@code b} to be closed after the test. */
  protected final Backend open(Backend b) {
    backends.push(b);
    return b;
  }

  /** A second backend, with {@code limits}, closed after the test. */
  protected final Backend withLimits(Limits limits) {
    return open(newBackend(limits));
  }

  /** Closes {@code b} now (through {@link #closeBackend}), instead of after the test. */
  protected final void closeNow(Backend b) {
    if (backends.remove(b)) {
      closeBackend(b);
    }
  }

  /** A watch that starts with a snapshot. */
  protected final EventStream watch(Backend b, Type type, Tenancy tenancy, String namePrefix) {
    return EventStream.withSnapshot(track(b.watch(type, tenancy, namePrefix, 0)), timeout());
  }

  /** A watch that resumes after {@code since}. */
  protected final EventStream resume(
      Backend b, Type type, Tenancy tenancy, String namePrefix, long since) {
    return EventStream.resumed(track(b.watch(type, tenancy, namePrefix, since)), since, timeout());
  }

  private WatchCursor track(WatchCursor watch) {
    watches.add(watch);
    return watch;
  }

  /** Runs {@code tasks} concurrently and returns their results, failing if any fails or hangs. */
  protected final <T> List<T> runConcurrently(List<Callable<T>> tasks) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(tasks.size());
    pools.add(pool);
    List<Future<T>> futures = new ArrayList<>();
    for (Callable<T> task : tasks) {
      futures.add(pool.submit(task));
    }
    List<T> results = new ArrayList<>();
    for (Future<T> future : futures) {
      results.add(future.get(timeout().toMillis(), TimeUnit.MILLISECONDS));
    }
    return results;
  }

  private Journal journal() {
    return new Journal(backend);
  }

  private List<Resource> listAll(Type type, Tenancy tenancy, String prefix) {
    Page page = backend.list(Consistency.STRONG, type, tenancy, prefix, 0, "");
    assertThat(page.nextPageToken()).as("a listing without limit is one page").isEmpty();
    return page.resources();
  }

  // The tenancy matrix of the selection tests: partitions x namespaces, each cell holding NAMES.
  private static final List<String> PARTITIONS = List.of("p1", "p2", "default");
  private static final List<String> NAMESPACES = List.of("n1", "n2", "default");
  private static final List<String> NAMES = List.of("alpha-1", "alpha-2", "beta-1");
  private static final List<String> PREFIXES = List.of("", "alpha", "alpha-2", "zeta");

  /** Partition x namespace patterns: concrete, "default" and "*" at each level. */
  static Stream<Arguments> tenancyPatterns() {
    return Stream.of("p1", "default", WILDCARD)
        .flatMap(p -> Stream.of("n1", "default", WILDCARD).map(n -> Arguments.of(p, n)));
  }

  private static List<Tenancy> cells() {
    return PARTITIONS.stream().flatMap(p -> NAMESPACES.stream().map(n -> tenancy(p, n))).toList();
  }

  /**
   * Widgets named {@link #NAMES} in every cell of the tenancy matrix, plus decoys that only the
   * type tells apart: a widget at another group version, a gadget and a widget of another group.
   * Keyed by id without uid.
   */
  private static Map<ID, Resource> populate(Journal journal) {
    Map<ID, Resource> all = new LinkedHashMap<>();
    for (Tenancy t : cells()) {
      for (String name : NAMES) {
        put(all, journal.create(id(WIDGET, t, name)));
      }
      put(all, journal.create(id(WIDGET_V2, t, "alpha-3")));
      put(all, journal.create(id(GADGET, t, "alpha-1")));
      put(all, journal.create(id(OTHER_GROUP_WIDGET, t, "alpha-1")));
    }
    return all;
  }

  private static void put(Map<ID, Resource> all, Resource r) {
    all.put(withoutUid(r.getId()), r);
  }

  private static List<Resource> selected(
      Iterable<Resource> all, Type type, Tenancy tenancy, String prefix) {
    List<Resource> out = new ArrayList<>();
    for (Resource r : all) {
      if (Fixtures.selects(type, tenancy, prefix, r)) {
        out.add(r);
      }
    }
    return out;
  }

  /** Asserts names ascend within each tenancy (the order listings and snapshots promise). */
  private static void assertNameOrderWithinTenancy(List<Resource> resources) {
    Map<Tenancy, List<String>> names =
        resources.stream()
            .collect(
                Collectors.groupingBy(
                    r -> r.getId().getTenancy(),
                    LinkedHashMap::new,
                    Collectors.mapping(r -> r.getId().getName(), Collectors.toList())));
    names.forEach((t, n) -> assertThat(n).as("names in %s", t).isSorted());
  }

  // ---- Blind writes decided by the store (putAsync): over whatever is stored as they apply.

  /** A resource as a blind writer sends it: no version, generation or statuses. */
  private static Resource blind(ID id, String text) {
    return Resource.newBuilder().setId(id).putMetadata("origin", "blind").setData(data(text)).build();
  }

  private Resource put(Resource resource, String uid, String generation) throws Exception {
    try {
      return backend.putAsync(resource, Fence.getDefaultInstance(), "", uid, generation)
          .get(timeout().toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      throw e.getCause() instanceof StorageException s ? s : e;
    }
  }

  @Test
  void put_createsWithTheGivenUidAndGenerationAndUpdatesKeepingIdStatusesAndUnchangedGeneration() throws Exception {
    String uid = newUid();
    String generation = newUid();
    Resource created = put(blind(id("a"), "one"), uid, generation);
    assertThat(created.getId().getUid()).isEqualTo(uid);
    assertThat(created.getGeneration()).isEqualTo(generation);
    assertThat(revision(created)).isEqualTo(backend.revision());
    assertThat(backend.read(Consistency.STRONG, id("a"))).isEqualTo(created);

    // Statuses only change through their own writes; a blind write keeps them.
    Resource withStatus = backend.writeCas(created.toBuilder()
        .putStatus("test-controller", io.setpoint.api.v1.Status.newBuilder().setObservedGeneration(generation).build()).build());
    Resource relabelled = put(blind(id("a"), "one").toBuilder().putMetadata("label", "x").build(), newUid(), newUid());
    assertThat(relabelled.getId()).isEqualTo(created.getId());
    assertThat(relabelled.getGeneration()).as("data unchanged: generation kept").isEqualTo(generation);
    assertThat(relabelled.getStatusMap()).isEqualTo(withStatus.getStatusMap());
    assertThat(relabelled.getMetadataMap()).containsEntry("label", "x");
    assertThat(revision(relabelled)).isGreaterThan(revision(withStatus));

    String nextGeneration = newUid();
    Resource changedData = put(blind(id("a"), "two").toBuilder().putMetadata("label", "x").build(), newUid(), nextGeneration);
    assertThat(changedData.getGeneration()).as("data changed: the given generation").isEqualTo(nextGeneration);
    assertThat(text(changedData)).isEqualTo("two");
    assertThat(changedData.getId().getUid()).isEqualTo(uid);
  }

  @Test
  void put_thatChangesNothingStoresNothingAndAnswersTheStoredResource() throws Exception {
    Resource created = put(blind(id("a"), "one"), newUid(), newUid());
    long revision = backend.revision();
    assertThat(put(blind(id("a"), "one"), newUid(), newUid())).isEqualTo(created);
    assertThat(backend.revision()).as("nothing was written").isEqualTo(revision);
  }

  @Test
  void put_concurrentWritersOfOneResourceAllSucceedAndTheLastAppliedWins() throws Exception {
    List<Callable<Resource>> writers = new ArrayList<>();
    for (int w = 0; w < 8; w++) {
      String text = "writer-" + w;
      writers.add(() -> put(blind(id("shared"), text), newUid(), newUid()));
    }
    Resource newest = null;
    for (Resource stored : runConcurrently(writers)) {
      if (newest == null || revision(stored) > revision(newest)) {
        newest = stored;
      }
    }
    assertThat(backend.read(Consistency.STRONG, id("shared"))).isEqualTo(newest);
  }

  @Test
  void put_leavesUndecidedWhatNeedsTheCallersDecisionAndWritesNothing() throws Exception {
    Resource owner = backend.writeCas(resource(id(GADGET, DEFAULT_TENANCY, "owner")));
    long revision = backend.revision();
    assertFails(Reason.UNDECIDED, () -> put(blind(id("child"), "x").toBuilder().setOwner(owner.getId()).build(), newUid(), newUid()));
    assertFails(Reason.UNDECIDED, () -> put(blind(withUid(id("a"), newUid()), "x"), newUid(), newUid()));
    assertThat(backend.revision()).as("nothing was written").isEqualTo(revision);

    Resource stored = backend.writeCas(resource(id("a")));
    revision = backend.revision();
    assertFails(Reason.UNDECIDED, () -> put(blind(withUid(id("a"), newUid()), "x"), newUid(), newUid()));
    assertFails(Reason.UNDECIDED, () -> put(blind(id("a"), "x").toBuilder().setOwner(owner.getId()).build(), newUid(), newUid()));
    assertThat(backend.revision()).as("nothing was written").isEqualTo(revision);
    Resource marked = backend.writeCas(stored.toBuilder()
        .putMetadata(io.setpoint.api.Resources.Finalizers.KEY, "test/cleanup")
        .putMetadata(io.setpoint.api.Resources.Finalizers.DELETION_TIMESTAMP, "2026-01-01T00:00:00Z").build());
    assertFails(Reason.UNDECIDED, () -> put(blind(id("a"), "x"), newUid(), newUid()));
    assertThat(backend.read(Consistency.STRONG, id("a"))).isEqualTo(marked);
    assertFails(Reason.GROUP_VERSION_MISMATCH, () -> put(blind(withType(id("a"), WIDGET_V2), "x"), newUid(), newUid()));
  }

  // ---- Health.

  @Test
  void health_aRunningBackendThatTookAWriteIsHealthy() {
    backend.writeCas(resource(id("a")));
    assertThat(backend.health()).isEqualTo(Health.OK);
  }

  // ---- Request ids: a write sent again after its answer was lost is applied once.

  @Test
  void requestId_aRepeatedWriteStoresNothingAndAnswersWhatTheFirstStored() throws Exception {
    Resource first = backend.writeCas(resource(id("a")), Fence.getDefaultInstance(), "req-1");
    long revision = backend.revision();

    // The same create again, as a client would send it: without the id it is a CAS failure.
    assertThat(backend.writeCas(resource(id("a")), Fence.getDefaultInstance(), "req-1")).isEqualTo(first);
    assertThat(backend.writeCasAsync(resource(id("a")), Fence.getDefaultInstance(), "req-1").get())
        .isEqualTo(first);
    assertThat(backend.revision()).as("nothing was written").isEqualTo(revision);
    assertThat(backend.findRequest(id("a"), "req-1")).isEqualTo(first);

    // Still the first's answer once another write replaced it, and that write stays.
    Resource second = backend.writeCas(changed(first, "second"));
    assertThat(backend.writeCas(resource(id("a")), Fence.getDefaultInstance(), "req-1")).isEqualTo(first);
    assertThat(backend.read(Consistency.STRONG, id("a"))).isEqualTo(second);
  }

  @Test
  void requestId_isMatchedWithTheResourceNameAndOnlyWhenTheWriteWasApplied() {
    Resource a = backend.writeCas(resource(id("a")), Fence.getDefaultInstance(), "req-1");
    Resource b = backend.writeCas(resource(id("b")), Fence.getDefaultInstance(), "req-1");
    assertThat(b.getId().getName()).as("the id reused for another name is not a repeat").isEqualTo("b");
    assertThat(backend.findRequest(id("c"), "req-1")).isNull();

    // A refused write leaves nothing to repeat: sent again with a right version, it is applied.
    assertFails(Reason.CAS_FAILURE,
        () -> backend.writeCas(changed(a, "x").toBuilder().setVersion("999").build(), Fence.getDefaultInstance(), "req-2"));
    assertThat(backend.findRequest(id("a"), "req-2")).isNull();
    Resource updated = backend.writeCas(changed(a, "x"), Fence.getDefaultInstance(), "req-2");
    assertThat(updated.getVersion()).isNotEqualTo(a.getVersion());
    assertThat(backend.findRequest(id("a"), "req-2")).isEqualTo(updated);
    assertThat(backend.findRequest(id("a"), "no-such-request")).isNull();
  }

  @Test
  void requestId_aRepeatedDeleteDeletesNothingEvenAResourceCreatedSince() {
    Resource first = backend.writeCas(resource(id("a")));
    assertThat(backend.deleteCas(id("a"), "", Fence.getDefaultInstance(), "del-1")).isNotNull();
    Resource again = backend.writeCas(resource(id("a")));
    long revision = backend.revision();

    // The delete sent again, after its answer was lost and someone created the name anew.
    assertThat(backend.deleteCas(id("a"), "", Fence.getDefaultInstance(), "del-1")).isNull();
    assertThat(backend.revision()).as("nothing was deleted").isEqualTo(revision);
    assertThat(backend.read(Consistency.STRONG, id("a"))).isEqualTo(again);
    assertThat(again.getId().getUid()).isNotEqualTo(first.getId().getUid());

    // A delete that found nothing is remembered too; a refused one is not.
    assertThat(backend.deleteCas(id("b"), "", Fence.getDefaultInstance(), "del-2")).isNull();
    Resource b = backend.writeCas(resource(id("b")));
    assertThat(backend.deleteCas(id("b"), "", Fence.getDefaultInstance(), "del-2")).isNull();
    assertThat(backend.read(Consistency.STRONG, id("b"))).isEqualTo(b);
    assertFails(Reason.CAS_FAILURE, () -> backend.deleteCas(id("b"), "999", Fence.getDefaultInstance(), "del-3"));
    assertThat(backend.deleteCas(id("b"), b.getVersion(), Fence.getDefaultInstance(), "del-3")).isNotNull();
    assertFails(Reason.NOT_FOUND, () -> backend.read(Consistency.STRONG, id("b")));
  }

  // ---- Fences: a write applied only while a lease is held, checked with the write.

  private Resource storeLease(String name, String holder, long epoch, boolean released) {
    Timestamp renewed = Timestamp.newBuilder().setSeconds(1_000).build();
    Timestamp expires = released ? renewed : Timestamp.newBuilder().setSeconds(1_015).build();
    ID leaseId = id(Types.LEASE, CLUSTER, name);
    Resource current;
    try {
      current = backend.read(Consistency.STRONG, leaseId);
    } catch (StorageException e) {
      current = resource(leaseId);
    }
    return backend.writeCas(current.toBuilder()
        .setData(Any.pack(Lease.newBuilder().setGroup("election").setHolder(holder).setEpoch(epoch)
            .setRenewedAt(renewed).setExpiresAt(expires).build()))
        .build());
  }

  private static Fence fence(String lease, String holder, long epoch) {
    return Fence.newBuilder().setLease(lease).setHolder(holder).setEpoch(epoch).build();
  }

  @Test
  void fence_aWriteOrDeleteFencedByAHeldLeaseIsApplied() throws Exception {
    storeLease("leader", "a", 3, false);
    Resource stored = backend.writeCas(resource(id("a")), fence("leader", "a", 3));
    assertThat(backend.read(Consistency.STRONG, id("a"))).isEqualTo(stored);
    assertThat(backend.writeCasAsync(changed(stored, "again"), fence("leader", "a", 3)).get()).isNotNull();
    assertThat(backend.deleteCas(id("a"), "", fence("leader", "a", 3))).isNotNull();
    assertFails(Reason.NOT_FOUND, () -> backend.read(Consistency.STRONG, id("a")));
  }

  @Test
  void fence_aLeaseHeldByAnotherHolderOrAtAnotherEpochRefusesTheWriteAndChangesNothing() {
    Resource stored = backend.writeCas(resource(id("a")));
    storeLease("leader", "b", 4, false);
    StorageException taken =
        assertFails(Reason.FENCED, () -> backend.writeCas(changed(stored, "late"), fence("leader", "a", 3)));
    assertThat(taken.getMessage()).contains("lease leader", "held by b at epoch 4");
    assertFails(Reason.FENCED, () -> backend.writeCas(changed(stored, "late"), fence("leader", "b", 3)));
    assertFails(Reason.FENCED, () -> backend.deleteCas(id("a"), "", fence("leader", "a", 3)));
    assertFails(Reason.FENCED, () -> {
      try {
        return backend.writeCasAsync(changed(stored, "late"), fence("leader", "a", 3)).join();
      } catch (java.util.concurrent.CompletionException e) {
        throw (RuntimeException) e.getCause();
      }
    });
    assertThat(backend.read(Consistency.STRONG, id("a"))).isEqualTo(stored);
  }

  @Test
  void fence_aReleasedOrMissingLeaseRefusesTheWrite() {
    assertThat(assertFails(Reason.FENCED, () -> backend.writeCas(resource(id("a")), fence("nobody", "a", 1)))
        .getMessage()).contains("does not exist");
    storeLease("leader", "a", 1, true);
    assertThat(assertFails(Reason.FENCED, () -> backend.writeCas(resource(id("a")), fence("leader", "a", 1)))
        .getMessage()).contains("released");
    assertFails(Reason.NOT_FOUND, () -> backend.read(Consistency.STRONG, id("a")));
  }

  // ---- Read: not found, consistency levels, uid, group version.

  @Test
  void read_missingResourceIsNotFound() {
    for (Consistency c : Consistency.values()) {
      assertFails(Reason.NOT_FOUND, () -> backend.read(c, id("missing")));
    }
  }

  @Test
  void read_returnsTheStoredResourceAtEitherConsistency() {
    Resource stored = backend.writeCas(resource(id("a")));
    for (Consistency c : Consistency.values()) {
      assertThat(backend.read(c, id("a"))).as("%s read", c).isEqualTo(stored);
    }
  }

  @Test
  void read_idWithUidMatchesOnlyThatIncarnation() {
    Resource stored = backend.writeCas(resource(id("a")));
    for (Consistency c : Consistency.values()) {
      assertThat(backend.read(c, stored.getId())).isEqualTo(stored);
      assertFails(Reason.NOT_FOUND, () -> backend.read(c, withUid(id("a"), newUid())));
    }
  }

  @Test
  void read_otherGroupVersionIsAMismatch() {
    Resource stored = backend.writeCas(resource(id("a")));
    for (Consistency c : Consistency.values()) {
      assertFails(
          Reason.GROUP_VERSION_MISMATCH, () -> backend.read(c, withType(id("a"), WIDGET_V2)));
      assertFails(
          Reason.GROUP_VERSION_MISMATCH,
          () -> backend.read(c, withType(stored.getId(), WIDGET_V2)));
    }
  }

  @Test
  void read_deletedResourceIsNotFound() {
    Resource stored = backend.writeCas(resource(id("a")));
    backend.deleteCas(stored.getId(), "");
    for (Consistency c : Consistency.values()) {
      assertFails(Reason.NOT_FOUND, () -> backend.read(c, id("a")));
      assertFails(Reason.NOT_FOUND, () -> backend.read(c, stored.getId()));
    }
  }

  @Test
  void read_kindAndTenancyAreSeparateKeys() {
    Resource widget = backend.writeCas(resource(id("a")));
    Resource gadget = backend.writeCas(resource(id(GADGET, DEFAULT_TENANCY, "a")));
    Resource otherGroup = backend.writeCas(resource(id(OTHER_GROUP_WIDGET, DEFAULT_TENANCY, "a")));
    Resource elsewhere = backend.writeCas(resource(id(WIDGET, tenancy("p1", "n1"), "a")));
    for (Resource r : List.of(widget, gadget, otherGroup, elsewhere)) {
      assertThat(backend.read(Consistency.STRONG, withoutUid(r.getId()))).isEqualTo(r);
    }
  }

  // ---- CAS write: create, update, stale versions, uid immutability, revisions.

  @Test
  void casWrite_createWithEmptyVersionStoresTheResourceAsGivenAndAssignsOnlyTheVersion() {
    Resource given =
        ownedBy(resource(id("a")), withUid(id(GADGET, DEFAULT_TENANCY, "o"), newUid()));
    Resource stored = backend.writeCas(given);
    revision(stored);
    assertThat(stored).isEqualTo(stored(given, stored.getVersion()));
    assertThat(backend.read(Consistency.STRONG, id("a"))).isEqualTo(stored);
  }

  @Test
  void casWrite_createWithAVersionFailsWhenNothingIsStored() {
    for (String version : List.of("1", "42")) {
      Resource given = resource(id("a")).toBuilder().setVersion(version).build();
      assertFails(Reason.CAS_FAILURE, () -> backend.writeCas(given));
    }
    assertFails(Reason.NOT_FOUND, () -> backend.read(Consistency.STRONG, id("a")));
  }

  @Test
  void casWrite_createWithEmptyVersionFailsWhenTheResourceExists() {
    Resource stored = backend.writeCas(resource(id("a")));
    Resource again = changed(stored, "again").toBuilder().clearVersion().build();
    assertFails(Reason.CAS_FAILURE, () -> backend.writeCas(again));
    assertThat(backend.read(Consistency.STRONG, id("a"))).isEqualTo(stored);
  }

  @Test
  void casWrite_updateWithTheCurrentVersionStoresTheNewStateUnderAHigherVersion() {
    Resource v1 = backend.writeCas(resource(id("a")));
    // The update drops metadata and status: the backend stores what it is given, no merging.
    Resource given = changed(v1, "two").toBuilder().clearMetadata().clearStatus().build();
    Resource v2 = backend.writeCas(given);
    assertThat(revision(v2)).isGreaterThan(revision(v1));
    assertThat(v2).isEqualTo(stored(given, v2.getVersion()));
    assertThat(backend.read(Consistency.STRONG, id("a"))).isEqualTo(v2);
  }

  @Test
  void casWrite_staleOrUnknownVersionIsACasFailureAndChangesNothing() {
    Resource v1 = backend.writeCas(resource(id("a")));
    Resource v2 = backend.writeCas(changed(v1, "two"));
    assertFails(Reason.CAS_FAILURE, () -> backend.writeCas(changed(v1, "stale")));
    Resource future =
        changed(v2, "future").toBuilder().setVersion(Long.toString(revision(v2) + 1000)).build();
    assertFails(Reason.CAS_FAILURE, () -> backend.writeCas(future));
    assertThat(backend.read(Consistency.STRONG, id("a"))).isEqualTo(v2);
  }

  @Test
  void casWrite_uidIsImmutableWhileTheResourceLives() {
    Resource stored = backend.writeCas(resource(id("a")));
    Resource impostor =
        changed(stored, "impostor").toBuilder().setId(withUid(id("a"), newUid())).build();
    assertFails(Reason.WRONG_UID, () -> backend.writeCas(impostor));
    assertThat(backend.read(Consistency.STRONG, id("a"))).isEqualTo(stored);
  }

  @Test
  void casWriteAsync_storesLikeWriteCasAndReportsFailuresThroughTheFuture() throws Exception {
    Resource given = resource(id("a"));
    Resource v1 = backend.writeCasAsync(given).get(10, TimeUnit.SECONDS);
    assertThat(v1).isEqualTo(stored(given, v1.getVersion()));
    assertThat(backend.read(Consistency.STRONG, id("a"))).isEqualTo(v1);
    Resource v2 = backend.writeCasAsync(changed(v1, "two")).get(10, TimeUnit.SECONDS);
    assertThat(revision(v2)).isGreaterThan(revision(v1));

    // A failure is not thrown by the call: it completes the future.
    CompletableFuture<Resource> stale = backend.writeCasAsync(changed(v1, "stale"));
    assertFails(Reason.CAS_FAILURE, () -> {
      try {
        return stale.get(10, TimeUnit.SECONDS);
      } catch (ExecutionException e) {
        throw (Exception) e.getCause();
      }
    });
    assertThat(backend.read(Consistency.STRONG, id("a"))).isEqualTo(v2);
  }

  @Test
  void casWrite_recreationAfterDeleteTakesANewUid() {
    Resource first = backend.writeCas(resource(id("a")));
    backend.deleteCas(first.getId(), first.getVersion());
    Resource second = backend.writeCas(resource(id("a")));
    assertThat(second.getId().getUid()).isNotEqualTo(first.getId().getUid());
    assertThat(revision(second)).isGreaterThan(revision(first));
    assertThat(backend.read(Consistency.STRONG, id("a"))).isEqualTo(second);
    assertThat(backend.read(Consistency.STRONG, second.getId())).isEqualTo(second);
    assertFails(Reason.NOT_FOUND, () -> backend.read(Consistency.STRONG, first.getId()));
    // The old incarnation cannot update the new one, even with the current version.
    Resource ghost = changed(first, "ghost").toBuilder().setVersion(second.getVersion()).build();
    assertFails(Reason.WRONG_UID, () -> backend.writeCas(ghost));
  }

  @Test
  void casWrite_versionsAreStrictlyIncreasingStoreRevisionsAcrossKeysTypesAndDeletes() {
    List<Long> revisions = new ArrayList<>();
    Resource a = backend.writeCas(resource(id("a")));
    revisions.add(revision(a));
    revisions.add(revision(backend.writeCas(resource(id(GADGET, DEFAULT_TENANCY, "a")))));
    revisions.add(revision(backend.writeCas(resource(id(WIDGET, tenancy("p1", "n1"), "b")))));
    a = backend.writeCas(changed(a, "two"));
    revisions.add(revision(a));
    backend.deleteCas(a.getId(), a.getVersion());
    revisions.add(revision(backend.writeCas(resource(id("a")))));
    revisions.add(revision(backend.writeCas(resource(id("c")))));
    assertThat(revisions).doesNotHaveDuplicates().isSorted();
  }

  @Test
  void casWrite_storageKeyIgnoresTheGroupVersion() {
    Resource v1 = backend.writeCas(resource(id("a")));
    Resource asV2 = changed(v1, "v2").toBuilder().setId(withType(v1.getId(), WIDGET_V2)).build();
    assertFails(
        Reason.CAS_FAILURE, () -> backend.writeCas(asV2.toBuilder().clearVersion().build()));

    Resource v2 = backend.writeCas(asV2);
    assertThat(v2).isEqualTo(stored(asV2, v2.getVersion()));
    assertThat(backend.read(Consistency.STRONG, withType(id("a"), WIDGET_V2))).isEqualTo(v2);
    assertFails(Reason.GROUP_VERSION_MISMATCH, () -> backend.read(Consistency.STRONG, id("a")));
    assertThat(listAll(WIDGET, DEFAULT_TENANCY, "")).isEmpty();
    assertThat(listAll(WIDGET_V2, DEFAULT_TENANCY, "")).containsExactly(v2);
  }

  // ---- CAS delete: idempotence, versions, uids.

  @Test
  void casDelete_deletingWhatIsAbsentDoesNothing() {
    assertThat(backend.deleteCas(id("missing"), "")).isNull();
    assertThat(backend.deleteCas(id("missing"), "7")).isNull();
    assertThat(backend.deleteCas(withUid(id("missing"), newUid()), "")).isNull();
  }

  @Test
  void casDelete_deleteWithTheCurrentVersionReturnsTheDeletedResourceAndIsIdempotent() {
    Resource stored = backend.writeCas(resource(id("a")));
    assertThat(backend.deleteCas(stored.getId(), stored.getVersion())).isEqualTo(stored);
    assertFails(Reason.NOT_FOUND, () -> backend.read(Consistency.STRONG, id("a")));
    assertThat(backend.deleteCas(stored.getId(), stored.getVersion())).isNull();
    assertThat(backend.deleteCas(id("a"), "")).isNull();
  }

  @Test
  void casDelete_staleVersionIsACasFailureAndKeepsTheResource() {
    Resource v1 = backend.writeCas(resource(id("a")));
    Resource v2 = backend.writeCas(changed(v1, "two"));
    assertFails(Reason.CAS_FAILURE, () -> backend.deleteCas(id("a"), v1.getVersion()));
    assertThat(backend.read(Consistency.STRONG, id("a"))).isEqualTo(v2);
  }

  @Test
  void casDelete_emptyVersionDeletesWhateverVersionIsStored() {
    Resource v1 = backend.writeCas(resource(id("a")));
    Resource v2 = backend.writeCas(changed(v1, "two"));
    assertThat(backend.deleteCas(id("a"), "")).isEqualTo(v2);
    assertFails(Reason.NOT_FOUND, () -> backend.read(Consistency.STRONG, id("a")));
  }

  @Test
  void casDelete_otherUidDeletesNothing() {
    Resource stored = backend.writeCas(resource(id("a")));
    assertThat(backend.deleteCas(withUid(id("a"), newUid()), "")).isNull();
    assertThat(backend.deleteCas(withUid(id("a"), newUid()), stored.getVersion())).isNull();
    assertThat(backend.read(Consistency.STRONG, id("a"))).isEqualTo(stored);
    assertThat(backend.deleteCas(stored.getId(), "")).isEqualTo(stored);
  }

  @Test
  void casDelete_aGoneIncarnationCannotDeleteItsSuccessor() {
    Resource first = backend.writeCas(resource(id("a")));
    backend.deleteCas(first.getId(), "");
    Resource second = backend.writeCas(resource(id("a")));
    assertThat(backend.deleteCas(first.getId(), "")).isNull();
    assertThat(backend.read(Consistency.STRONG, id("a"))).isEqualTo(second);
  }

  // ---- ListByOwner: children of exactly one owner incarnation.

  @Test
  void listByOwner_listsExactlyTheDirectChildrenOfTheOwner() {
    Resource owner = backend.writeCas(resource(id("owner")));
    Resource other = backend.writeCas(resource(id("other")));
    Resource gadget =
        backend.writeCas(ownedBy(resource(id(GADGET, DEFAULT_TENANCY, "child")), owner.getId()));
    Resource widget =
        backend.writeCas(
            ownedBy(resource(id(WIDGET, tenancy("p1", "n1"), "child")), owner.getId()));
    Resource grandchild = backend.writeCas(ownedBy(resource(id("grandchild")), widget.getId()));
    backend.writeCas(ownedBy(resource(id("stranger")), other.getId()));
    backend.writeCas(resource(id("orphan")));

    assertThat(backend.listByOwner(owner.getId())).containsExactlyInAnyOrder(gadget, widget);
    assertThat(backend.listByOwner(widget.getId())).containsExactly(grandchild);
    assertThat(backend.listByOwner(grandchild.getId())).isEmpty();
  }

  @Test
  void listByOwner_deletedChildrenDisappearAndUpdatedOnesShowTheirNewState() {
    Resource owner = backend.writeCas(resource(id("owner")));
    Resource a = backend.writeCas(ownedBy(resource(id("a")), owner.getId()));
    Resource b = backend.writeCas(ownedBy(resource(id("b")), owner.getId()));
    backend.deleteCas(a.getId(), "");
    Resource b2 = backend.writeCas(changed(b, "two"));
    assertThat(backend.listByOwner(owner.getId())).containsExactly(b2);
    backend.deleteCas(b2.getId(), "");
    assertThat(backend.listByOwner(owner.getId())).isEmpty();
  }

  @Test
  void listByOwner_childrenAreAnchoredToTheOwnerIncarnation() {
    Resource first = backend.writeCas(resource(id("owner")));
    Resource oldChild = backend.writeCas(ownedBy(resource(id("old-child")), first.getId()));
    backend.deleteCas(first.getId(), "");
    Resource second = backend.writeCas(resource(id("owner")));

    assertThat(backend.listByOwner(second.getId())).isEmpty();
    Resource newChild = backend.writeCas(ownedBy(resource(id("new-child")), second.getId()));
    assertThat(backend.listByOwner(second.getId())).containsExactly(newChild);
    // The storage layer does not cascade: the old incarnation's child is still its child.
    assertThat(backend.listByOwner(first.getId())).containsExactly(oldChild);
  }

  @Test
  void listByOwner_aRewrittenOwnerFieldMovesTheChild() {
    Resource one = backend.writeCas(resource(id("one")));
    Resource two = backend.writeCas(resource(id("two")));
    Resource child = backend.writeCas(ownedBy(resource(id("child")), one.getId()));
    Resource moved = backend.writeCas(ownedBy(changed(child, "moved"), two.getId()));
    assertThat(backend.listByOwner(one.getId())).isEmpty();
    assertThat(backend.listByOwner(two.getId())).containsExactly(moved);
    Resource freed = backend.writeCas(changed(moved, "freed").toBuilder().clearOwner().build());
    assertThat(backend.listByOwner(two.getId())).isEmpty();
    assertThat(backend.read(Consistency.STRONG, id("child"))).isEqualTo(freed);
  }

  // ---- List and watch over every wildcard combination, name prefix and decoy type.

  @ParameterizedTest(name = "partition={0} namespace={1}")
  @MethodSource("tenancyPatterns")
  void selection_listReturnsExactlyTheSelectedResources(String partition, String namespace) {
    Map<ID, Resource> all = populate(journal());
    Tenancy pattern = tenancy(partition, namespace);
    assertThat(selected(all.values(), WIDGET, pattern, "")).isNotEmpty();
    for (Type type : List.of(WIDGET, WIDGET_V2, GADGET, OTHER_GROUP_WIDGET)) {
      for (String prefix : PREFIXES) {
        for (Consistency c : Consistency.values()) {
          Page page = backend.list(c, type, pattern, prefix, 0, "");
          assertThat(page.resources())
              .as("%s list of %s in %s with prefix '%s'", c, type.getKind(), pattern, prefix)
              .containsExactlyInAnyOrderElementsOf(selected(all.values(), type, pattern, prefix));
          assertNameOrderWithinTenancy(page.resources());
          assertThat(page.nextPageToken()).isEmpty();
        }
      }
    }
  }

  @ParameterizedTest(name = "partition={0} namespace={1}")
  @MethodSource("tenancyPatterns")
  void selection_watchDeliversTheSelectedSnapshotThenExactlyTheSelectedChanges(
      String partition, String namespace) throws InterruptedException {
    Journal journal = journal();
    Map<ID, Resource> all = populate(journal);
    long populated = revision(journal.since(0).getLast().resource());
    Tenancy pattern = tenancy(partition, namespace);

    Map<String, EventStream> streams = new LinkedHashMap<>();
    for (String prefix : PREFIXES) {
      EventStream stream = watch(backend, WIDGET, pattern, prefix);
      EventStream.Snapshot snapshot = stream.snapshot();
      assertThat(snapshot.resources())
          .as("snapshot of %s with prefix '%s'", pattern, prefix)
          .containsExactlyInAnyOrderElementsOf(selected(all.values(), WIDGET, pattern, prefix));
      assertNameOrderWithinTenancy(snapshot.resources());
      assertThat(snapshot.revision()).isGreaterThanOrEqualTo(populated);
      streams.put(prefix, stream);
    }

    int mark = journal.mark();
    for (Tenancy t : cells()) {
      journal.update(all.get(id(WIDGET, t, "alpha-1")), "updated");
      journal.delete(all.get(id(WIDGET, t, "beta-1")));
      journal.create(id(WIDGET, t, "alpha-4"));
      journal.create(id(WIDGET, t, "zeta-1"));
      journal.update(all.get(id(WIDGET_V2, t, "alpha-3")), "decoy");
      journal.update(all.get(id(GADGET, t, "alpha-1")), "decoy");
      journal.delete(all.get(id(OTHER_GROUP_WIDGET, t, "alpha-1")));
    }
    // One sentinel per watch, written last: its arrival proves everything before it arrived.
    Tenancy inside =
        tenancy(
            partition.equals(WILDCARD) ? "p2" : partition,
            namespace.equals(WILDCARD) ? "n2" : namespace);
    Map<String, Resource> sentinels = new HashMap<>();
    for (String prefix : PREFIXES) {
      String name = prefix.isEmpty() ? "sentinel" : prefix + "-sentinel";
      sentinels.put(prefix, journal.create(id(WIDGET, inside, name)));
    }

    for (String prefix : PREFIXES) {
      Resource sentinel = sentinels.get(prefix);
      List<Change> expected =
          Change.upTo(journal.since(mark, WIDGET, pattern, prefix), Change.upsert(sentinel));
      assertThat(streams.get(prefix).until(sentinel))
          .as("live events of %s with prefix '%s'", pattern, prefix)
          .containsExactlyElementsOf(expected);
    }
  }

  @Test
  void selection_clusterAndPartitionScopedTypes() throws InterruptedException {
    Journal journal = journal();
    Resource nodeA = journal.create(id(NODE, CLUSTER, "node-a"));
    Resource nodeB = journal.create(id(NODE, CLUSTER, "node-b"));
    Resource zoneA = journal.create(id(ZONE, tenancy("p1", ""), "zone-a"));
    Resource zoneB = journal.create(id(ZONE, tenancy("p2", ""), "zone-b"));
    Resource zoneC = journal.create(id(ZONE, tenancy("default", ""), "zone-c"));

    assertThat(listAll(NODE, CLUSTER, "")).containsExactly(nodeA, nodeB);
    assertThat(listAll(NODE, CLUSTER, "node-b")).containsExactly(nodeB);
    assertThat(listAll(ZONE, tenancy(WILDCARD, ""), ""))
        .containsExactlyInAnyOrder(zoneA, zoneB, zoneC);
    assertThat(listAll(ZONE, tenancy("p2", ""), "")).containsExactly(zoneB);
    assertThat(listAll(ZONE, tenancy(WILDCARD, ""), "zone-c")).containsExactly(zoneC);
    assertThat(backend.read(Consistency.STRONG, id(NODE, CLUSTER, "node-a"))).isEqualTo(nodeA);
    assertThat(backend.read(Consistency.STRONG, id(ZONE, tenancy("p1", ""), "zone-a")))
        .isEqualTo(zoneA);

    EventStream zones = watch(backend, ZONE, tenancy(WILDCARD, ""), "");
    assertThat(zones.snapshot().resources()).containsExactlyInAnyOrder(zoneA, zoneB, zoneC);
    EventStream nodes = watch(backend, NODE, CLUSTER, "");
    assertThat(nodes.snapshot().resources()).containsExactly(nodeA, nodeB);
    int mark = journal.mark();
    journal.update(zoneB, "two");
    journal.delete(nodeA);
    journal.create(id(ZONE, tenancy("p3", ""), "zone-d"));
    Resource lastNode = journal.create(id(NODE, CLUSTER, "node-c"));
    Resource lastZone = journal.create(id(ZONE, tenancy("p1", ""), "zone-e"));
    assertThat(zones.until(lastZone))
        .containsExactlyElementsOf(journal.since(mark, ZONE, tenancy(WILDCARD, ""), ""));
    assertThat(nodes.until(lastNode))
        .containsExactlyElementsOf(
            Change.upTo(journal.since(mark, NODE, CLUSTER, ""), Change.upsert(lastNode)));
  }

  // ---- Pagination: page sizes, end of listing, one snapshot across pages, bad and old tokens.

  /** Ten widgets over four tenancies, with other-version widgets interleaved. */
  private List<Resource> populateForPaging() {
    List<Tenancy> tenancies =
        List.of(tenancy("p1", "n1"), tenancy("p1", "n2"), tenancy("p2", "n1"), DEFAULT_TENANCY);
    for (int i = 0; i < 10; i++) {
      Tenancy t = tenancies.get(i % tenancies.size());
      backend.writeCas(resource(id(WIDGET, t, "item-" + i)));
      backend.writeCas(resource(id(WIDGET_V2, t, "item-" + i + "-v2")));
    }
    List<Resource> all = listAll(WIDGET, tenancy(WILDCARD, WILDCARD), "");
    assertThat(all).hasSize(10);
    return all;
  }

  /** Reads every page of a listing, checking each page's size, token and revision. */
  private List<Resource> readAllPages(Tenancy tenancy, String prefix, int limit, int total) {
    List<Resource> out = new ArrayList<>();
    String token = "";
    long revision = -1;
    int pages = 0;
    do {
      Page page = backend.list(Consistency.EVENTUAL, WIDGET, tenancy, prefix, limit, token);
      pages++;
      assertThat(pages).as("a listing of %s ends", total).isLessThanOrEqualTo(total + 1);
      if (revision < 0) {
        revision = page.revision();
      }
      assertThat(page.revision()).as("every page reads at one revision").isEqualTo(revision);
      token = page.nextPageToken();
      if (token.isEmpty()) {
        assertThat(page.resources().size()).isLessThanOrEqualTo(limit);
      } else {
        assertThat(page.resources()).as("a page before the last is full").hasSize(limit);
      }
      out.addAll(page.resources());
    } while (!token.isEmpty());
    assertThat(pages).isEqualTo(Math.max(1, (total + limit - 1) / limit));
    return out;
  }

  @ParameterizedTest(name = "page size {0}")
  @ValueSource(ints = {1, 2, 3, 4, 9, 10, 11, 100})
  void pagination_pagesConcatenateToTheFullListing(int limit) {
    List<Resource> all = populateForPaging();
    assertThat(readAllPages(tenancy(WILDCARD, WILDCARD), "", limit, all.size()))
        .containsExactlyElementsOf(all);
    List<Resource> inP1 = listAll(WIDGET, tenancy("p1", WILDCARD), "item-");
    assertThat(readAllPages(tenancy("p1", WILDCARD), "item-", limit, inP1.size()))
        .containsExactlyElementsOf(inP1);
    List<Resource> inP1N1 = listAll(WIDGET, tenancy("p1", "n1"), "item-");
    assertThat(readAllPages(tenancy("p1", "n1"), "item-", limit, inP1N1.size()))
        .containsExactlyElementsOf(inP1N1);
  }

  @Test
  void pagination_emptyListingIsOneEmptyPage() {
    Page page = backend.list(Consistency.EVENTUAL, WIDGET, tenancy(WILDCARD, WILDCARD), "", 5, "");
    assertThat(page.resources()).isEmpty();
    assertThat(page.nextPageToken()).isEmpty();
  }

  @Test
  void pagination_laterPagesReadTheSnapshotOfTheFirst() {
    Map<String, Resource> byName = new HashMap<>();
    for (String name : List.of("a", "b", "c", "d", "e", "f")) {
      byName.put(name, backend.writeCas(resource(id(name))));
    }
    Page first = backend.list(Consistency.STRONG, WIDGET, DEFAULT_TENANCY, "", 2, "");
    assertThat(first.resources()).containsExactly(byName.get("a"), byName.get("b"));

    backend.deleteCas(id("c"), "");
    backend.writeCas(changed(byName.get("d"), "changed"));
    backend.writeCas(resource(id("bb")));
    backend.writeCas(resource(id("g")));
    backend.deleteCas(id("a"), "");

    Page second =
        backend.list(Consistency.STRONG, WIDGET, DEFAULT_TENANCY, "", 2, first.nextPageToken());
    assertThat(second.resources()).containsExactly(byName.get("c"), byName.get("d"));
    assertThat(second.revision()).isEqualTo(first.revision());
    Page third =
        backend.list(Consistency.STRONG, WIDGET, DEFAULT_TENANCY, "", 2, second.nextPageToken());
    assertThat(third.resources()).containsExactly(byName.get("e"), byName.get("f"));
    assertThat(third.nextPageToken()).isEmpty();

    assertThat(listAll(WIDGET, DEFAULT_TENANCY, ""))
        .extracting(r -> r.getId().getName())
        .containsExactly("b", "bb", "d", "e", "f", "g");
  }

  @Test
  void pagination_tokenNotIssuedForThisListingIsRejected() {
    populateForPaging();
    Page widgets = backend.list(Consistency.STRONG, WIDGET, tenancy("p1", "n1"), "", 1, "");
    backend.writeCas(resource(id(GADGET, DEFAULT_TENANCY, "g1")));
    backend.writeCas(resource(id(GADGET, DEFAULT_TENANCY, "g2")));
    Page gadgetsFirst = backend.list(Consistency.STRONG, GADGET, DEFAULT_TENANCY, "", 1, "");
    assertThat(widgets.nextPageToken()).isNotEmpty();
    assertThat(gadgetsFirst.nextPageToken()).isNotEmpty();

    List<String> bad =
        List.of("garbage!", "not-a-token", "AAAA", "%%%", gadgetsFirst.nextPageToken());
    for (String token : bad) {
      assertFails(
          Reason.BAD_PAGE_TOKEN,
          () -> backend.list(Consistency.STRONG, WIDGET, tenancy("p1", "n1"), "", 1, token));
    }
    assertFails(
        Reason.BAD_PAGE_TOKEN,
        () ->
            backend.list(
                Consistency.STRONG, WIDGET, tenancy("p2", "n1"), "", 1, widgets.nextPageToken()));
  }

  @Test
  void pagination_tokenOlderThanTheRetainedHistoryIsCompacted() {
    Backend small = withLimits(new Limits(4, 1024));
    for (String name : List.of("a", "b", "c")) {
      small.writeCas(resource(id(name)));
    }
    Page first = small.list(Consistency.STRONG, WIDGET, DEFAULT_TENANCY, "", 1, "");
    Resource churn = small.writeCas(resource(id(GADGET, DEFAULT_TENANCY, "churn")));
    for (int i = 0; i < 10; i++) {
      churn = small.writeCas(changed(churn, "churn-" + i));
    }
    assertFails(
        Reason.COMPACTED,
        () ->
            small.list(Consistency.STRONG, WIDGET, DEFAULT_TENANCY, "", 1, first.nextPageToken()));
    // A fresh listing works.
    assertThat(small.list(Consistency.STRONG, WIDGET, DEFAULT_TENANCY, "", 0, "").resources())
        .hasSize(3);
  }

  // ---- WatchCursor: snapshot, end of snapshot, commit order, readable after notified.

  @Test
  void watch_snapshotThenEndOfSnapshotThenLiveChangesInCommitOrder() throws InterruptedException {
    Journal journal = journal();
    Resource a = journal.create(id("a"));
    Resource b = journal.create(id("b"));
    Resource elsewhere = journal.create(id(WIDGET, tenancy("p1", "n1"), "c"));

    List<EventStream> streams = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      EventStream stream = watch(backend, WIDGET, DEFAULT_TENANCY, "");
      EventStream.Snapshot snapshot = stream.snapshot();
      assertThat(snapshot.resources()).containsExactly(a, b);
      assertThat(snapshot.revision()).isGreaterThanOrEqualTo(revision(elsewhere));
      streams.add(stream);
    }

    int mark = journal.mark();
    Resource a2 = journal.update(a, "two");
    journal.create(id("d"));
    journal.delete(b);
    journal.update(elsewhere, "not watched");
    journal.update(a2, "three");
    journal.create(id(GADGET, DEFAULT_TENANCY, "a"));
    Resource sentinel = journal.create(id("z"));
    List<Change> expected = journal.since(mark, WIDGET, DEFAULT_TENANCY, "");
    assertThat(expected).hasSize(5);
    for (EventStream stream : streams) {
      assertThat(stream.until(sentinel)).containsExactlyElementsOf(expected);
    }
  }

  @Test
  void watch_ofAnEmptyStoreIsJustTheMarkerThenLiveChanges() throws InterruptedException {
    EventStream stream = watch(backend, WIDGET, tenancy(WILDCARD, WILDCARD), "");
    assertThat(stream.snapshot().resources()).isEmpty();
    Resource a = backend.writeCas(resource(id("a")));
    assertThat(stream.next(1)).containsExactly(Change.upsert(a));
  }

  @Test
  void watch_notifiedChangesAreReadableUnderConcurrentWriters() throws Exception {
    // Each writer creates fresh keys and updates each once, so a watcher that reads right after a
    // notification catches both "not yet readable" (NOT_FOUND after a create) and stale reads.
    int writers = 4;
    int keysEach = 50;
    EventStream stream = watch(backend, WIDGET, DEFAULT_TENANCY, "");
    stream.snapshot();

    List<Callable<Void>> tasks = new ArrayList<>();
    for (int w = 0; w < writers; w++) {
      String prefix = "w" + w + "-";
      tasks.add(
          () -> {
            for (int i = 0; i < keysEach; i++) {
              Resource created = backend.writeCas(resource(id(prefix + i)));
              backend.writeCas(changed(created, "updated"));
            }
            return null;
          });
    }
    ExecutorService pool = Executors.newSingleThreadExecutor();
    pools.add(pool);
    Future<List<Void>> writing = pool.submit(() -> runConcurrently(tasks));

    for (int seen = 0; seen < writers * keysEach * 2; seen++) {
      WatchEvent event = stream.next();
      assertThat(event.hasUpsert()).isTrue();
      ID notified = event.getUpsert().getResource().getId();
      for (Consistency c : Consistency.values()) {
        Resource read = backend.read(c, notified);
        assertThat(revision(read))
            .as(
                "%s read of %s after being told of revision %s",
                c, notified.getName(), event.getRevision())
            .isGreaterThanOrEqualTo(event.getRevision());
      }
    }
    writing.get(timeout().toMillis(), TimeUnit.MILLISECONDS);
  }

  @Test
  void watch_snapshotAndLiveEventsJoinWithoutGapsOrDuplicatesUnderConcurrentWriters()
      throws Exception {
    int writers = 4;
    CountDownLatch started = new CountDownLatch(writers);
    List<Callable<Void>> tasks = new ArrayList<>();
    for (int w = 0; w < writers; w++) {
      String name = "key-" + w;
      tasks.add(
          () -> {
            Resource r = null;
            for (int i = 0; i < 60; i++) {
              if (i == 10) {
                started.countDown();
              }
              if (r == null) {
                r = backend.writeCas(resource(id(name)));
              } else if (i % 7 == 0) {
                backend.deleteCas(r.getId(), r.getVersion());
                r = null;
              } else {
                r = backend.writeCas(changed(r, "v" + i));
              }
            }
            return null;
          });
    }
    ExecutorService pool = Executors.newSingleThreadExecutor();
    pools.add(pool);
    Future<List<Void>> writing = pool.submit(() -> runConcurrently(tasks));
    assertThat(started.await(timeout().toMillis(), TimeUnit.MILLISECONDS)).isTrue();

    EventStream stream = watch(backend, WIDGET, DEFAULT_TENANCY, "");
    Map<String, Resource> view = new HashMap<>();
    for (Resource r : stream.snapshot().resources()) {
      assertThat(view.put(r.getId().getName(), r)).as("snapshot holds each key once").isNull();
    }
    writing.get(timeout().toMillis(), TimeUnit.MILLISECONDS);
    Resource sentinel = backend.writeCas(resource(id("sentinel")));
    for (Change change : stream.until(sentinel)) {
      String name = change.resource().getId().getName();
      Resource known = view.get(name);
      if (change.kind() == Change.Kind.UPSERT) {
        if (known != null) {
          assertThat(revision(change.resource()))
              .as("update of %s after what the watcher knew", name)
              .isGreaterThan(revision(known));
        }
        view.put(name, change.resource());
      } else {
        assertThat(known)
            .as("delete of %s, which the watcher knew", name)
            .isEqualTo(change.resource());
        view.remove(name);
      }
    }
    assertThat(view.values())
        .containsExactlyInAnyOrderElementsOf(listAll(WIDGET, DEFAULT_TENANCY, ""));
  }

  // ---- WatchCursor resume by revision, and compaction.

  @Test
  void resume_afterAnyRevisionReplaysExactlyTheLaterChanges() throws InterruptedException {
    Journal journal = journal();
    journal.create(id(GADGET, DEFAULT_TENANCY, "before"));
    EventStream full = watch(backend, WIDGET, DEFAULT_TENANCY, "");
    long start = full.snapshot().revision();

    Resource a = journal.create(id("a"));
    Resource b = journal.create(id("b"));
    Resource decoy = journal.create(id(WIDGET, tenancy("p1", "n1"), "a"));
    a = journal.update(a, "two");
    journal.delete(b);
    journal.update(decoy, "two");
    journal.create(id("b"));
    journal.delete(a);
    Resource last = journal.create(id("c"));

    List<WatchEvent> events = new ArrayList<>();
    while (events.isEmpty() || !Change.of(events.getLast()).equals(Change.upsert(last))) {
      events.add(full.next());
    }
    List<Long> since = new ArrayList<>();
    since.add(start);
    events.forEach(e -> since.add(e.getRevision()));
    for (int i = 0; i < since.size() - 1; i++) {
      List<Change> expected = events.subList(i, events.size()).stream().map(Change::of).toList();
      EventStream resumed = resume(backend, WIDGET, DEFAULT_TENANCY, "", since.get(i));
      assertThat(resumed.until(last))
          .as("resumed after revision %s", since.get(i))
          .containsExactlyElementsOf(expected);
      resumed.close();
    }
  }

  @Test
  void resume_continuesWithLiveChanges() throws InterruptedException {
    Resource a = backend.writeCas(resource(id("a")));
    EventStream resumed = resume(backend, WIDGET, DEFAULT_TENANCY, "", revision(a));
    Resource b = backend.writeCas(resource(id("b")));
    backend.writeCas(resource(id(WIDGET, tenancy("p1", "n1"), "x")));
    Resource a2 = backend.writeCas(changed(a, "two"));
    backend.deleteCas(b.getId(), "");
    assertThat(resumed.next(3))
        .containsExactly(Change.upsert(b), Change.upsert(a2), Change.delete(b));
  }

  @Test
  void resume_revisionThisStoreHasNotReachedIsRefused() {
    long now = revision(backend.writeCas(resource(id("a"))));
    // -1 is 2^64-1 to a client: the API's revisions are uint64.
    for (long ahead : new long[] {now + 1, now + 1_000_000, Long.MAX_VALUE, -1L}) {
      assertFails(Reason.FUTURE_REVISION, () -> backend.watch(WIDGET, DEFAULT_TENANCY, "", ahead));
    }
  }

  @Test
  void resume_revisionOlderThanTheRetainedHistoryIsCompacted() throws InterruptedException {
    Backend small = withLimits(new Limits(4, 1024));
    Resource r = small.writeCas(resource(id("a")));
    long first = revision(r);
    for (int i = 0; i < 12; i++) {
      r = small.writeCas(changed(r, "v" + i));
    }
    assertFails(Reason.COMPACTED, () -> small.watch(WIDGET, DEFAULT_TENANCY, "", first));

    // Recent revisions still resume, and a fresh watch starts from a snapshot.
    EventStream recent = resume(small, WIDGET, DEFAULT_TENANCY, "", revision(r) - 1);
    assertThat(recent.next(1)).containsExactly(Change.upsert(r));
    EventStream fresh = watch(small, WIDGET, DEFAULT_TENANCY, "");
    assertThat(fresh.snapshot().resources()).containsExactly(r);
  }

  // ---- Closing watches and backends.

  @Test
  void watchClose_closedWatchFailsWithWatchClosed() throws InterruptedException {
    backend.writeCas(resource(id("a")));
    EventStream stream = watch(backend, WIDGET, DEFAULT_TENANCY, "");
    stream.snapshot();
    stream.close();
    assertTimeoutPreemptively(
        timeout(), () -> assertFails(Reason.WATCH_CLOSED, () -> stream.watch().next()));
    assertFails(Reason.WATCH_CLOSED, () -> stream.watch().poll(timeout()));
    stream.close();
    backend.writeCas(resource(id("b")));
    assertFails(Reason.WATCH_CLOSED, () -> stream.watch().poll(timeout()));
  }

  @Test
  void watchClose_closingWakesAConsumerBlockedInNext() throws InterruptedException {
    EventStream stream = watch(backend, WIDGET, DEFAULT_TENANCY, "");
    stream.snapshot();
    BlockedConsumer consumer = BlockedConsumer.start(stream.watch(), timeout());
    stream.close();
    consumer.assertEndsWith(Reason.WATCH_CLOSED, timeout());
  }

  @Test
  void watchClose_closingTheBackendClosesItsWatches() throws InterruptedException {
    Backend other = withLimits(Limits.DEFAULT);
    other.writeCas(resource(id("a")));
    EventStream idle = watch(other, WIDGET, DEFAULT_TENANCY, "");
    idle.snapshot();
    EventStream blocked = watch(other, GADGET, tenancy(WILDCARD, WILDCARD), "");
    blocked.snapshot();
    BlockedConsumer consumer = BlockedConsumer.start(blocked.watch(), timeout());

    closeNow(other);

    consumer.assertEndsWith(Reason.WATCH_CLOSED, timeout());
    assertFails(Reason.WATCH_CLOSED, () -> idle.watch().poll(timeout()));
  }

  // ---- Concurrency: no lost update, one winner.

  @Test
  void concurrency_blindCasIncrementsLoseNoUpdate() throws Exception {
    int threads = 8;
    int increments = 25;
    backend.writeCas(resource(id("counter")).toBuilder().setData(data("0")).build());
    Set<String> versions = ConcurrentHashMap.newKeySet();
    List<Callable<Void>> tasks = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      tasks.add(
          () -> {
            for (int i = 0; i < increments; i++) {
              while (true) {
                Resource current = backend.read(Consistency.STRONG, id("counter"));
                int n = Integer.parseInt(text(current));
                try {
                  versions.add(
                      backend.writeCas(changed(current, Integer.toString(n + 1))).getVersion());
                  break;
                } catch (StorageException e) {
                  if (e.reason() != Reason.CAS_FAILURE) {
                    throw e;
                  }
                }
              }
            }
            return null;
          });
    }
    runConcurrently(tasks);
    assertThat(text(backend.read(Consistency.STRONG, id("counter"))))
        .isEqualTo(Integer.toString(threads * increments));
    assertThat(versions).hasSize(threads * increments);
  }

  @Test
  void concurrency_createsOfOneNameHaveExactlyOneWinner() throws Exception {
    int threads = 8;
    CyclicBarrier barrier = new CyclicBarrier(threads);
    List<Callable<Resource>> tasks = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      tasks.add(
          () -> {
            Resource mine = resource(id("contested"));
            barrier.await(timeout().toMillis(), TimeUnit.MILLISECONDS);
            try {
              return backend.writeCas(mine);
            } catch (StorageException e) {
              assertThat(e.reason()).isIn(Reason.CAS_FAILURE, Reason.WRONG_UID);
              return null;
            }
          });
    }
    List<Resource> winners = runConcurrently(tasks).stream().filter(r -> r != null).toList();
    assertThat(winners).hasSize(1);
    assertThat(backend.read(Consistency.STRONG, id("contested"))).isEqualTo(winners.getFirst());
  }
}
