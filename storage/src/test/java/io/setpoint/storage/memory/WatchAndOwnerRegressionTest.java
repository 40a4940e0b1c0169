package io.setpoint.storage.memory;

import static io.setpoint.storage.conformance.Fixtures.DEFAULT_TENANCY;
import static io.setpoint.storage.conformance.Fixtures.GADGET;
import static io.setpoint.storage.conformance.Fixtures.TIMEOUT;
import static io.setpoint.storage.conformance.Fixtures.WIDGET;
import static io.setpoint.storage.conformance.Fixtures.WIDGET_V2;
import static io.setpoint.storage.conformance.Fixtures.assertFails;
import static io.setpoint.storage.conformance.Fixtures.changed;
import static io.setpoint.storage.conformance.Fixtures.id;
import static io.setpoint.storage.conformance.Fixtures.ownedBy;
import static io.setpoint.storage.conformance.Fixtures.resource;
import static io.setpoint.storage.conformance.Fixtures.withType;
import static org.assertj.core.api.Assertions.assertThat;

import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.WatchEvent;
import io.setpoint.storage.Backend.WatchCursor;
import io.setpoint.storage.StorageException.Reason;
import io.setpoint.storage.engine.StoreEngine.Limits;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Regression tests for bugs once found in the memory backend's engine: each states the contract
 * it checks and how the code used to break it.
 */
class WatchAndOwnerRegressionTest {
  private final MemoryBackend backend = new MemoryBackend(Limits.DEFAULT);

  @AfterEach
  void close() {
    backend.close();
  }

  /**
   * {@link WatchCursor#close()}: "further calls to next() fail". Subscription.poll used to serve the
   * backlog (here the snapshot) before it looked at whether it was closed.
   */
  @Test
  void closedWatchReturnsNoPendingSnapshotEvent() throws InterruptedException {
    backend.writeCas(resource(id("a")));
    WatchCursor watch = backend.watch(WIDGET, DEFAULT_TENANCY, "", 0);
    watch.close();
    assertFails(Reason.WATCH_CLOSED, () -> watch.poll(TIMEOUT));
  }

  /**
   * Same contract for live events: Subscription.close() used to append its wake-up marker behind
   * the events already buffered, so poll() returned them before failing.
   */
  @Test
  void closedWatchReturnsNoBufferedLiveEvent() throws InterruptedException {
    WatchCursor watch = backend.watch(WIDGET, DEFAULT_TENANCY, "", 0);
    assertThat(watch.poll(TIMEOUT).hasEndOfSnapshot()).isTrue();
    backend.writeCas(resource(id("a")));
    watch.close();
    assertFails(Reason.WATCH_CLOSED, () -> watch.poll(TIMEOUT));
  }

  /**
   * A watch must receive every change committed after it opened. WatchHub.subscribe used to add
   * the new subscription to the list it got from {@code byType.computeIfAbsent(...)} outside that call,
   * while Subscription.close() runs WatchHub.remove without the writer lock; when the last other
   * watch of the type closes in between, remove() drops the list from the map and the new
   * subscription is added to a detached list: it never receives an event, and closing the backend
   * does not close it either. Probabilistic: runs until the first lost event or for 3 seconds (the race used to show within
   * that time in every run).
   */
  @Test
  void watchOpenedWhileAnotherWatchOfItsTypeClosesReceivesEveryChange() throws Exception {
    AtomicBoolean stop = new AtomicBoolean();
    List<Thread> churners = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      Thread t =
          new Thread(
              () -> {
                while (!stop.get()) {
                  backend.watch(WIDGET, DEFAULT_TENANCY, "", 0).close();
                }
              },
              "watch-churner-" + i);
      t.setDaemon(true);
      t.start();
      churners.add(t);
    }
    try {
      Resource r = backend.writeCas(resource(id("a")));
      long deadline = System.nanoTime() + Duration.ofSeconds(3).toNanos();
      int attempts = 0;
      while (System.nanoTime() < deadline) {
        attempts++;
        WatchCursor watch = backend.watch(WIDGET, DEFAULT_TENANCY, "", 0);
        WatchEvent event;
        do {
          event = watch.poll(TIMEOUT);
        } while (event != null && !event.hasEndOfSnapshot());
        r = backend.writeCas(changed(r, "v" + attempts));
        WatchEvent change = watch.poll(Duration.ofSeconds(2));
        watch.close();
        assertThat(change)
            .as("the change committed after watch %s opened (version %s)", attempts, r.getVersion())
            .isNotNull();
      }
    } finally {
      stop.set(true);
      for (Thread t : churners) {
        t.join(TIMEOUT.toMillis());
      }
    }
  }

  /**
   * ListByOwner lists the children of one owner incarnation (its uid); storage keys ignore the
   * group version, and a resource may be rewritten at another one. ResourceIndex.listByOwner used
   * to compare the child's whole owner ID with {@code equals}, group version included, so after the
   * owner moves from v1 to v2 a cascade that lists children by the owner's current id finds none
   * and would leave them orphaned.
   */
  @Test
  void listByOwnerFindsChildrenOfTheIncarnationWhateverItsGroupVersion() {
    Resource owner = backend.writeCas(resource(id("owner")));
    Resource child =
        backend.writeCas(ownedBy(resource(id(GADGET, DEFAULT_TENANCY, "child")), owner.getId()));
    Resource migrated =
        backend.writeCas(
            changed(owner, "v2").toBuilder().setId(withType(owner.getId(), WIDGET_V2)).build());
    assertThat(migrated.getId().getUid()).isEqualTo(owner.getId().getUid());
    assertThat(backend.listByOwner(migrated.getId())).containsExactly(child);
  }

  /**
   * A watcher of one group version must not keep a resource that was rewritten under another:
   * storage keys ignore the version, so the old version's watchers see the move as a delete.
   */
  @Test
  void rewriteUnderAnotherGroupVersionLeavesTheOldVersionsWatchersAsADelete() throws InterruptedException {
    Resource v1 = backend.writeCas(resource(id("moving")));
    WatchCursor v1Watch = backend.watch(WIDGET, DEFAULT_TENANCY, "", 0);
    WatchCursor v2Watch = backend.watch(WIDGET_V2, DEFAULT_TENANCY, "", 0);
    assertThat(v1Watch.poll(TIMEOUT).getUpsert().getResource()).isEqualTo(v1);
    assertThat(v1Watch.poll(TIMEOUT).hasEndOfSnapshot()).isTrue();
    assertThat(v2Watch.poll(TIMEOUT).hasEndOfSnapshot()).isTrue();

    Resource v2 = backend.writeCas(
        changed(v1, "v2").toBuilder().setId(withType(v1.getId(), WIDGET_V2)).build());

    WatchEvent left = v1Watch.poll(TIMEOUT);
    assertThat(left.getDelete().getResource()).isEqualTo(v1);
    assertThat(left.getRevision()).isEqualTo(Long.parseLong(v2.getVersion()));
    assertThat(v2Watch.poll(TIMEOUT).getUpsert().getResource()).isEqualTo(v2);
    v1Watch.close();
    v2Watch.close();
  }
}
