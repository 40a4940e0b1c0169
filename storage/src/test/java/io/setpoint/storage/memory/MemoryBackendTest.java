package io.setpoint.storage.memory;

import static io.setpoint.storage.conformance.Fixtures.DEFAULT_TENANCY;
import static io.setpoint.storage.conformance.Fixtures.GADGET;
import static io.setpoint.storage.conformance.Fixtures.TIMEOUT;
import static io.setpoint.storage.conformance.Fixtures.WIDGET;
import static io.setpoint.storage.conformance.Fixtures.assertFails;
import static io.setpoint.storage.conformance.Fixtures.changed;
import static io.setpoint.storage.conformance.Fixtures.id;
import static io.setpoint.storage.conformance.Fixtures.ownedBy;
import static io.setpoint.storage.conformance.Fixtures.resource;
import static io.setpoint.storage.conformance.Fixtures.revision;
import static org.assertj.core.api.Assertions.assertThat;

import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.WatchEvent;
import io.setpoint.storage.Backend.Page;
import io.setpoint.storage.Consistency;
import io.setpoint.storage.StorageException.Reason;
import io.setpoint.storage.StorageException;
import io.setpoint.storage.conformance.Change;
import io.setpoint.storage.conformance.EventStream;
import io.setpoint.storage.engine.StoreEngine.Limits;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Behaviour of the memory backend beyond the conformance suite: where exactly its history floor
 * lies, what eviction leaves behind, and how a watcher that falls behind is cut off.
 */
class MemoryBackendTest {
  private final List<MemoryBackend> backends = new ArrayList<>();

  @AfterEach
  void closeBackends() {
    backends.forEach(MemoryBackend::close);
  }

  private MemoryBackend backend(Limits limits) {
    MemoryBackend backend = new MemoryBackend(limits);
    backends.add(backend);
    return backend;
  }

  /** Writes {@code count} updates of one gadget, to push the history forward. */
  private static void churn(MemoryBackend backend, int count) {
    Resource r =
        backend.writeCas(resource(id(GADGET, DEFAULT_TENANCY, "churn-" + backend.revision())));
    for (int i = 1; i < count; i++) {
      r = backend.writeCas(changed(r, "churn-" + i));
    }
  }

  @Test
  void revisionCountsEveryCommittedChangeAndNothingElse() {
    MemoryBackend backend = backend(Limits.DEFAULT);
    assertThat(backend.revision()).isZero();
    Resource a = backend.writeCas(resource(id("a")));
    assertThat(backend.revision()).isEqualTo(revision(a)).isEqualTo(1);
    assertFails(
        Reason.CAS_FAILURE,
        () -> backend.writeCas(changed(a, "x").toBuilder().setVersion("9").build()));
    assertThat(backend.deleteCas(id("missing"), "")).isNull();
    assertThat(backend.revision()).as("failed and no-op changes take no revision").isEqualTo(1);
    backend.deleteCas(a.getId(), "");
    assertThat(backend.revision()).isEqualTo(2);
  }

  @Test
  void resumeWorksDownToTheFloorAndIsCompactedBelowIt() throws InterruptedException {
    int history = 5;
    MemoryBackend backend = backend(new Limits(history, 1024));
    List<Resource> writes = new ArrayList<>();
    Resource r = backend.writeCas(resource(id("a")));
    writes.add(r);
    for (int i = 0; i < 11; i++) {
      r = backend.writeCas(changed(r, "v" + i));
      writes.add(r);
    }
    long floor = backend.revision() - history;
    assertThat(floor).isEqualTo(7);

    EventStream atFloor =
        EventStream.resumed(backend.watch(WIDGET, DEFAULT_TENANCY, "", floor), floor, TIMEOUT);
    assertThat(atFloor.next(history))
        .containsExactlyElementsOf(
            writes.subList((int) floor, writes.size()).stream().map(Change::upsert).toList());
    atFloor.close();

    StorageException e =
        assertFails(Reason.COMPACTED, () -> backend.watch(WIDGET, DEFAULT_TENANCY, "", floor - 1));
    assertThat(e.getMessage())
        .contains("since_revision " + (floor - 1))
        .contains("oldest is " + floor);
  }

  @Test
  void pageTokenWorksUntilItsRevisionFallsBelowTheFloor() {
    int history = 4;
    MemoryBackend backend = backend(new Limits(history, 1024));
    for (String name : List.of("a", "b", "c")) {
      backend.writeCas(resource(id(name)));
    }
    Page first = backend.list(Consistency.STRONG, WIDGET, DEFAULT_TENANCY, "", 1, "");
    assertThat(first.revision()).isEqualTo(3);

    churn(backend, history); // revision 7: the floor reaches the token's revision
    Page second =
        backend.list(Consistency.STRONG, WIDGET, DEFAULT_TENANCY, "", 1, first.nextPageToken());
    assertThat(second.resources()).extracting(r -> r.getId().getName()).containsExactly("b");

    churn(backend, 1); // revision 8: the token's revision is gone
    assertFails(
        Reason.COMPACTED,
        () ->
            backend.list(
                Consistency.STRONG, WIDGET, DEFAULT_TENANCY, "", 1, second.nextPageToken()));
  }

  @Test
  void tokenFromTheFutureIsRejected() {
    MemoryBackend issuer = backend(Limits.DEFAULT);
    for (int i = 0; i < 5; i++) {
      issuer.writeCas(resource(id("r" + i)));
    }
    String token =
        issuer.list(Consistency.STRONG, WIDGET, DEFAULT_TENANCY, "", 1, "").nextPageToken();
    MemoryBackend other = backend(Limits.DEFAULT);
    other.writeCas(resource(id("r0")));
    assertFails(
        Reason.BAD_PAGE_TOKEN,
        () -> other.list(Consistency.STRONG, WIDGET, DEFAULT_TENANCY, "", 1, token));
  }

  @Test
  void evictedTombstonesLeaveNoTrace() throws InterruptedException {
    MemoryBackend backend = backend(new Limits(2, 1024));
    Resource owner = backend.writeCas(resource(id("owner")));
    Resource child = backend.writeCas(ownedBy(resource(id("child")), owner.getId()));
    backend.deleteCas(child.getId(), "");
    churn(backend, 5);

    assertFails(Reason.NOT_FOUND, () -> backend.read(Consistency.STRONG, id("child")));
    assertThat(backend.list(Consistency.STRONG, WIDGET, DEFAULT_TENANCY, "", 0, "").resources())
        .containsExactly(owner);
    assertThat(backend.listByOwner(owner.getId())).isEmpty();
    EventStream stream =
        EventStream.withSnapshot(backend.watch(WIDGET, DEFAULT_TENANCY, "", 0), TIMEOUT);
    assertThat(stream.snapshot().resources()).containsExactly(owner);

    Resource again = backend.writeCas(ownedBy(resource(id("child")), owner.getId()));
    assertThat(revision(again)).isEqualTo(backend.revision());
    assertThat(backend.listByOwner(owner.getId())).containsExactly(again);
    assertThat(stream.next(1)).containsExactly(Change.upsert(again));
    stream.close();
  }

  @Test
  void watcherThatFallsAWholeBufferBehindIsClosedAfterWhatItHoldsAndCanResume()
      throws InterruptedException {
    int buffer = 4;
    MemoryBackend backend = backend(new Limits(1024, buffer));
    EventStream slow =
        EventStream.withSnapshot(backend.watch(WIDGET, DEFAULT_TENANCY, "", 0), TIMEOUT);
    slow.snapshot();
    EventStream other =
        EventStream.withSnapshot(backend.watch(GADGET, DEFAULT_TENANCY, "", 0), TIMEOUT);
    other.snapshot();

    List<Change> written = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      written.add(Change.upsert(backend.writeCas(resource(id("x" + i)))));
    }
    // The writer never waits for the slow watcher; it sees what its buffer held, then the close.
    assertThat(slow.next(buffer)).containsExactlyElementsOf(written.subList(0, buffer));
    long resumeAfter = revision(written.get(buffer - 1).resource());
    StorageException closed = assertFails(Reason.WATCH_CLOSED, () -> slow.watch().poll(TIMEOUT));
    assertThat(closed.getMessage())
        .contains("fell more than " + buffer + " events behind")
        .contains("since_revision " + resumeAfter);

    EventStream resumed =
        EventStream.resumed(
            backend.watch(WIDGET, DEFAULT_TENANCY, "", resumeAfter), resumeAfter, TIMEOUT);
    assertThat(resumed.next(10 - buffer)).containsExactlyElementsOf(written.subList(buffer, 10));

    // A watcher of another type was never affected.
    Resource gadget = backend.writeCas(resource(id(GADGET, DEFAULT_TENANCY, "g")));
    assertThat(other.next(1)).containsExactly(Change.upsert(gadget));
    resumed.close();
    other.close();
  }

  @Test
  void watcherWhoseBufferOutgrowsItsByteBudgetIsClosedAfterWhatItHoldsAndCanResume()
      throws InterruptedException {
    // Each event encodes to a little over 10 KB: three fit in the budget, a fourth does not.
    String payload = "x".repeat(10_000);
    MemoryBackend backend = backend(new Limits(1024, 1024).withWatchBufferBytes(35_000));
    EventStream slow =
        EventStream.withSnapshot(backend.watch(WIDGET, DEFAULT_TENANCY, "", 0), TIMEOUT);
    slow.snapshot();

    List<Change> written = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      written.add(Change.upsert(backend.writeCas(changed(resource(id("x" + i)), payload))));
    }
    assertThat(slow.next(3)).containsExactlyElementsOf(written.subList(0, 3));
    long resumeAfter = revision(written.get(2).resource());
    StorageException closed = assertFails(Reason.WATCH_CLOSED, () -> slow.watch().poll(TIMEOUT));
    assertThat(closed.getMessage())
        .contains("fell more than 35000 bytes of events behind")
        .contains("since_revision " + resumeAfter);

    EventStream resumed =
        EventStream.resumed(
            backend.watch(WIDGET, DEFAULT_TENANCY, "", resumeAfter), resumeAfter, TIMEOUT);
    assertThat(resumed.next(3)).containsExactlyElementsOf(written.subList(3, 6));
    resumed.close();
  }

  @Test
  void aWatcherThatKeepsUpReceivesEventsLargerThanItsWholeByteBudget() throws InterruptedException {
    MemoryBackend backend = backend(new Limits(1024, 1024).withWatchBufferBytes(100));
    EventStream watcher =
        EventStream.withSnapshot(backend.watch(WIDGET, DEFAULT_TENANCY, "", 0), TIMEOUT);
    watcher.snapshot();
    for (int i = 0; i < 3; i++) {
      Resource big = backend.writeCas(changed(resource(id("big" + i)), "y".repeat(1_000)));
      assertThat(watcher.next(1)).containsExactly(Change.upsert(big));
    }
    watcher.close();
  }

  @Test
  void snapshotUpsertsCarryTheRevisionOfTheirWrite() throws InterruptedException {
    MemoryBackend backend = backend(Limits.DEFAULT);
    Resource a = backend.writeCas(resource(id("a")));
    Resource b = backend.writeCas(resource(id("b")));
    backend.writeCas(changed(a, "two"));
    var watch = backend.watch(WIDGET, DEFAULT_TENANCY, "b", 0);
    WatchEvent upsert = watch.poll(TIMEOUT);
    assertThat(upsert.getRevision()).isEqualTo(revision(b));
    WatchEvent end = watch.poll(TIMEOUT);
    assertThat(end.hasEndOfSnapshot()).isTrue();
    assertThat(end.getRevision()).isEqualTo(backend.revision());
    watch.close();
  }

  @Test
  void closedBackendRefusesWritesDeletesAndWatches() {
    MemoryBackend backend = backend(Limits.DEFAULT);
    Resource a = backend.writeCas(resource(id("a")));
    backend.close();
    assertFails(Reason.UNAVAILABLE, () -> backend.writeCas(resource(id("b"))));
    assertFails(Reason.UNAVAILABLE, () -> backend.deleteCas(a.getId(), ""));
    assertFails(Reason.UNAVAILABLE, () -> backend.watch(WIDGET, DEFAULT_TENANCY, "", 0));
    assertFails(Reason.UNAVAILABLE, () -> backend.watch(WIDGET, DEFAULT_TENANCY, "", 1));
  }
}
