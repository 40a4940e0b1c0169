package io.setpoint.storage.engine;

import static io.setpoint.storage.conformance.Fixtures.WIDGET;
import static io.setpoint.storage.conformance.Fixtures.WIDGET_V2;
import static io.setpoint.storage.conformance.Fixtures.WILDCARD;
import static io.setpoint.storage.conformance.Fixtures.assertFails;
import static io.setpoint.storage.conformance.Fixtures.changed;
import static io.setpoint.storage.conformance.Fixtures.id;
import static io.setpoint.storage.conformance.Fixtures.newUid;
import static io.setpoint.storage.conformance.Fixtures.resource;
import static io.setpoint.storage.conformance.Fixtures.tenancy;
import static io.setpoint.storage.conformance.Fixtures.withType;
import static io.setpoint.storage.conformance.Fixtures.withUid;
import static org.assertj.core.api.Assertions.assertThat;

import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Tenancy;
import io.setpoint.api.v1.Type;
import io.setpoint.storage.Page;
import io.setpoint.storage.StorageException.Reason;
import io.setpoint.storage.conformance.Change;
import io.setpoint.storage.conformance.Fixtures;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.From;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * Model-based properties of {@link ResourceIndex}: random sequences of CAS writes, deletes,
 * group-version migrations and listings are applied both to the index and to a model that keeps
 * every revision's state in a {@link TreeMap}. After every step the index must agree with the model
 * on reads, listings (at the current revision and, through old page tokens, at past ones), MVCC
 * snapshots, the change history, the owner index, and the compaction floor.
 */
class ResourceIndexModelTest {
  private static final List<Tenancy> TENANCIES = List.of(tenancy("p1", "n1"), tenancy("p2", "n1"));
  private static final List<String> NAMES = List.of("a", "ab", "b");
  private static final int SLOTS = TENANCIES.size() * NAMES.size();
  private static final Tenancy ANY = tenancy(WILDCARD, WILDCARD);

  /** One step of a scenario. */
  sealed interface Op {}

  /** Create with a fresh uid and empty version. */
  record Create(int slot, boolean owned) implements Op {}

  /** Update with the current version (or a made-up one when absent). */
  record Update(int slot) implements Op {}

  /** Update with an older version than the current one. */
  record StaleUpdate(int slot) implements Op {}

  /** Rewrite the live resource at the other group version. */
  record Migrate(int slot) implements Op {}

  /** Delete with the current version, an empty one, a stale one, or another uid. */
  record Delete(int slot, DeleteMode mode) implements Op {}

  /** Start a listing of every type's resources with this page size; continue it later. */
  record StartListing(int pageSize) implements Op {}

  enum DeleteMode {
    CURRENT,
    EMPTY,
    STALE,
    OTHER_UID
  }

  @Provide
  Arbitrary<Op> op() {
    Arbitrary<Integer> slot = Arbitraries.integers().between(0, SLOTS - 1);
    Arbitrary<Op> create =
        slot.flatMap(s -> Arbitraries.of(true, false).map(owned -> (Op) new Create(s, owned)));
    Arbitrary<Op> update = slot.map(Update::new);
    Arbitrary<Op> stale = slot.map(StaleUpdate::new);
    Arbitrary<Op> migrate = slot.map(Migrate::new);
    Arbitrary<Op> delete =
        slot.flatMap(s -> Arbitraries.of(DeleteMode.class).map(m -> (Op) new Delete(s, m)));
    Arbitrary<Op> list = Arbitraries.integers().between(1, 4).map(StartListing::new);
    return Arbitraries.frequencyOf(
        Tuple.of(4, create),
        Tuple.of(5, update),
        Tuple.of(1, stale),
        Tuple.of(1, migrate),
        Tuple.of(3, delete),
        Tuple.of(2, list));
  }

  @Property(tries = 300)
  void indexAgreesWithTheModel(
      @ForAll @Size(max = 40) List<@From("op") Op> ops,
      @ForAll @IntRange(min = 1, max = 8) int history) {
    new Scenario(history).run(ops);
  }

  /** The index under test, the model, and the checks. */
  private static final class Scenario {
    private final int history;
    private final ResourceIndex index;

    /** State after each revision; index 0 is the empty store. */
    private final List<NavigableMap<String, Resource>> states = new ArrayList<>();

    /** Change of each revision; index 0 is unused. */
    private final List<Change> log = new ArrayList<>();

    private final List<OpenListing> listings = new ArrayList<>();
    private final Resource owner = resource(id(Fixtures.GADGET, Fixtures.DEFAULT_TENANCY, "owner"));

    Scenario(int history) {
      this.history = history;
      this.index = new ResourceIndex(new Limits(history, 16));
      states.add(new TreeMap<>());
      log.add(null);
    }

    void run(List<Op> ops) {
      for (Op op : ops) {
        apply(op);
        check();
      }
    }

    private long revision() {
      return states.size() - 1;
    }

    private NavigableMap<String, Resource> live() {
      return states.getLast();
    }

    private ID slotId(int slot) {
      return id(WIDGET, TENANCIES.get(slot / NAMES.size()), NAMES.get(slot % NAMES.size()));
    }

    private Resource liveAt(int slot) {
      return live().get(StoreKeys.of(slotId(slot)));
    }

    private void commit(Change change) {
      NavigableMap<String, Resource> next = new TreeMap<>(live());
      String key = StoreKeys.of(change.resource().getId());
      if (change.kind() == Change.Kind.UPSERT) {
        next.put(key, change.resource());
      } else {
        next.remove(key);
      }
      states.add(next);
      log.add(change);
    }

    private void write(Resource given, Reason expectedFailure) {
      if (expectedFailure != null) {
        assertFails(expectedFailure, () -> index.write(given));
        return;
      }
      Entry entry = index.write(given);
      Resource expected = given.toBuilder().setVersion(Long.toString(revision() + 1)).build();
      assertThat(entry.resource()).isEqualTo(expected);
      assertThat(entry.revision()).isEqualTo(revision() + 1);
      commit(Change.upsert(expected));
    }

    private void apply(Op op) {
      switch (op) {
        case Create c -> {
          Resource r = resource(slotId(c.slot()));
          if (c.owned()) {
            r = r.toBuilder().setOwner(owner.getId()).build();
          }
          write(r, liveAt(c.slot()) == null ? null : Reason.WRONG_UID);
        }
        case Update u -> {
          Resource current = liveAt(u.slot());
          if (current == null) {
            Resource ghost = resource(slotId(u.slot())).toBuilder().setVersion("1").build();
            write(ghost, Reason.CAS_FAILURE);
          } else {
            write(changed(current, "update"), null);
          }
        }
        case StaleUpdate s -> {
          Resource current = liveAt(s.slot());
          Resource stale =
              current == null
                  ? resource(slotId(s.slot())).toBuilder().setVersion("999").build()
                  : changed(current, "stale").toBuilder()
                      .setVersion(Long.toString(Long.parseLong(current.getVersion()) - 1))
                      .build();
          write(stale, Reason.CAS_FAILURE);
        }
        case Migrate m -> {
          Resource current = liveAt(m.slot());
          if (current != null) {
            Type other = current.getId().getType().equals(WIDGET) ? WIDGET_V2 : WIDGET;
            Resource migrated =
                changed(current, "migrated").toBuilder()
                    .setId(withType(current.getId(), other))
                    .build();
            write(migrated, null);
          }
        }
        case Delete d -> delete(d);
        case StartListing l -> {
          Type type = WIDGET;
          Page page = index.list(new Query(type, ANY, ""), l.pageSize(), "");
          List<Resource> expected = selected(live(), type);
          assertThat(page.revision()).isEqualTo(revision());
          assertThat(page.resources())
              .containsExactlyElementsOf(
                  expected.subList(0, Math.min(l.pageSize(), expected.size())));
          if (!page.nextPageToken().isEmpty()) {
            listings.add(
                new OpenListing(
                    type, l.pageSize(), revision(), page.resources().size(), page.nextPageToken()));
          }
        }
      }
    }

    private void delete(Delete d) {
      Resource current = liveAt(d.slot());
      ID base = current == null ? slotId(d.slot()) : current.getId();
      ID target = d.mode() == DeleteMode.OTHER_UID ? withUid(base, newUid()) : base;
      String version =
          switch (d.mode()) {
            case CURRENT -> current == null ? "" : current.getVersion();
            case STALE -> "0";
            case EMPTY, OTHER_UID -> "";
          };
      if (current == null || d.mode() == DeleteMode.OTHER_UID) {
        assertThat(index.delete(target, version)).isNull();
      } else if (d.mode() == DeleteMode.STALE) {
        assertFails(Reason.CAS_FAILURE, () -> index.delete(target, version));
      } else {
        Entry tombstone = index.delete(target, version);
        assertThat(tombstone.deleted()).isTrue();
        assertThat(tombstone.resource()).isEqualTo(current);
        assertThat(tombstone.revision()).isEqualTo(revision() + 1);
        commit(Change.delete(current));
      }
    }

    private static List<Resource> selected(Map<String, Resource> state, Type type) {
      return state.values().stream().filter(r -> r.getId().getType().equals(type)).toList();
    }

    private void check() {
      long revision = revision();
      long floor = Math.max(0, revision - history);
      assertThat(index.revision()).isEqualTo(revision);
      assertThat(index.floor())
          .as("floor after %s revisions with history %s", revision, history)
          .isEqualTo(floor);

      for (int slot = 0; slot < SLOTS; slot++) {
        ID id = slotId(slot);
        Resource expected = live().get(StoreKeys.of(id));
        if (expected == null) {
          assertFails(Reason.NOT_FOUND, () -> index.read(id));
        } else if (!expected.getId().getType().equals(WIDGET)) {
          assertFails(Reason.GROUP_VERSION_MISMATCH, () -> index.read(id));
          assertThat(index.read(expected.getId())).isEqualTo(expected);
        } else {
          assertThat(index.read(id)).isEqualTo(expected);
          assertFails(Reason.NOT_FOUND, () -> index.read(withUid(id, newUid())));
        }
      }

      for (Type type : List.of(WIDGET, WIDGET_V2)) {
        assertThat(index.list(new Query(type, ANY, ""), 0, "").resources())
            .containsExactlyElementsOf(selected(live(), type));
        assertThat(index.list(new Query(type, TENANCIES.getFirst(), "a"), 0, "").resources())
            .containsExactlyElementsOf(
                selected(live(), type).stream()
                    .filter(r -> r.getId().getTenancy().equals(TENANCIES.getFirst()))
                    .filter(r -> r.getId().getName().startsWith("a"))
                    .toList());
      }

      for (long at = 0; at <= revision; at++) {
        Query query = new Query(WIDGET, ANY, "");
        long past = at;
        if (at < floor) {
          assertFails(Reason.COMPACTED, () -> index.snapshot(query, past));
          assertFails(Reason.COMPACTED, () -> index.changesSince(past, query));
          continue;
        }
        assertThat(index.snapshot(query, at).stream().map(Entry::resource).toList())
            .as("snapshot at %s", at)
            .containsExactlyElementsOf(selected(states.get((int) at), WIDGET));
        List<Change> changes =
            index.changesSince(at, query).stream()
                .map(e -> e.deleted() ? Change.delete(e.resource()) : Change.upsert(e.resource()))
                .toList();
        assertThat(changes)
            .as("changes since %s", at)
            .containsExactlyElementsOf(
                log.subList((int) at + 1, log.size()).stream()
                    .filter(c -> c.resource().getId().getType().equals(WIDGET))
                    .toList());
      }

      for (OpenListing listing : listings) {
        listing.checkContinuation(this, floor);
      }

      List<Resource> children =
          live().values().stream().filter(r -> r.getOwner().equals(owner.getId())).toList();
      assertThat(index.listByOwner(owner.getId())).containsExactlyInAnyOrderElementsOf(children);
    }
  }

  /** A listing whose first page was read at {@code revision}; the rest must read the same state. */
  private record OpenListing(Type type, int pageSize, long revision, int returned, String token) {
    void checkContinuation(Scenario scenario, long floor) {
      Query query = new Query(type, ANY, "");
      if (revision < floor) {
        assertFails(Reason.COMPACTED, () -> scenario.index.list(query, pageSize, token));
        return;
      }
      List<Resource> expected = Scenario.selected(scenario.states.get((int) revision), type);
      List<Resource> rest = new ArrayList<>();
      String next = token;
      while (!next.isEmpty()) {
        Page page = scenario.index.list(query, pageSize, next);
        assertThat(page.revision()).isEqualTo(revision);
        rest.addAll(page.resources());
        next = page.nextPageToken();
      }
      assertThat(rest)
          .as("rest of a listing at revision %s", revision)
          .containsExactlyElementsOf(expected.subList(returned, expected.size()));
    }
  }
}
