package io.setpoint.storage.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.WatchEvent;
import io.setpoint.storage.Backend.WatchCursor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a {@link WatchCursor} with bounded waits and checks what every watch must guarantee: events of a
 * snapshot are upserts ending in one end-of-snapshot marker, and live events come in strictly
 * increasing revisions, a live upsert's revision being the version it stores.
 */
public final class EventStream implements AutoCloseable {
  private final WatchCursor watch;
  private final Duration timeout;
  private boolean live;
  private long lastRevision;

  private EventStream(WatchCursor watch, Duration timeout, boolean live) {
    this.watch = watch;
    this.timeout = timeout;
    this.live = live;
  }

  /** A watch opened with {@code sinceRevision} 0: it starts with a snapshot. */
  public static EventStream withSnapshot(WatchCursor watch, Duration timeout) {
    return new EventStream(watch, timeout, false);
  }

  /** A watch opened with a {@code sinceRevision}: every event is live, after that revision. */
  public static EventStream resumed(WatchCursor watch, long sinceRevision, Duration timeout) {
    EventStream stream = new EventStream(watch, timeout, true);
    stream.lastRevision = sinceRevision;
    return stream;
  }

  public WatchCursor watch() {
    return watch;
  }

  /** The next event; fails when none arrives in time. */
  public WatchEvent next() throws InterruptedException {
    WatchEvent event = watch.poll(timeout);
    if (event == null) {
      fail("no watch event within " + timeout);
    }
    check(event);
    return event;
  }

  /** The resources of the snapshot, in delivery order, consuming the end-of-snapshot marker. */
  public Snapshot snapshot() throws InterruptedException {
    assertThat(live).as("snapshot already consumed or watch resumed").isFalse();
    List<WatchEvent> upserts = new ArrayList<>();
    while (true) {
      WatchEvent event = next();
      if (event.hasEndOfSnapshot()) {
        for (WatchEvent upsert : upserts) {
          assertThat(upsert.getRevision())
              .as("snapshot event revision is at most the snapshot revision")
              .isLessThanOrEqualTo(event.getRevision());
        }
        return new Snapshot(
            upserts.stream().map(e -> e.getUpsert().getResource()).toList(), event.getRevision());
      }
      upserts.add(event);
    }
  }

  /**
   * The changes delivered up to and including the upsert of {@code last} (as stored), which the
   * test writes after everything it expects, so nothing needs a timed wait for "no more events".
   */
  public List<Change> until(Resource last) throws InterruptedException {
    Change end = Change.upsert(last);
    List<Change> out = new ArrayList<>();
    while (true) {
      Change change = Change.of(next());
      out.add(change);
      if (change.equals(end)) {
        return out;
      }
    }
  }

  /** The changes of the next {@code count} events. */
  public List<Change> next(int count) throws InterruptedException {
    List<Change> out = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      out.add(Change.of(next()));
    }
    return out;
  }

  private void check(WatchEvent event) {
    if (event.hasEndOfSnapshot()) {
      assertThat(live).as("end of snapshot comes once, and never on a resumed watch").isFalse();
      live = true;
      lastRevision = event.getRevision();
      return;
    }
    assertThat(event.hasUpsert() || event.hasDelete()).as("event kind of %s", event).isTrue();
    if (!live) {
      assertThat(event.hasUpsert()).as("a snapshot holds only upserts: %s", event).isTrue();
    } else {
      assertThat(event.getRevision())
          .as("live events come in commit order: %s", Change.of(event))
          .isGreaterThan(lastRevision);
      lastRevision = event.getRevision();
    }
    if (event.hasUpsert() && !live) {
      assertThat(event.getRevision())
          .as("a snapshot upsert's revision is at least the version it stores")
          .isGreaterThanOrEqualTo(Fixtures.revision(event.getUpsert().getResource()));
    } else if (event.hasUpsert()) {
      assertThat(Long.toString(event.getRevision()))
          .as("a live upsert's revision is the version it stores")
          .isEqualTo(event.getUpsert().getResource().getVersion());
    } else {
      assertThat(event.getRevision())
          .as("a delete comes after the write of what it deletes")
          .isGreaterThan(Fixtures.revision(event.getDelete().getResource()));
    }
  }

  @Override
  public void close() {
    watch.close();
  }

  /**
   * What a watch's snapshot held.
   *
   * @param resources the upserted resources
   * @param revision the revision of the end-of-snapshot marker
   */
  public record Snapshot(List<Resource> resources, long revision) {}
}
