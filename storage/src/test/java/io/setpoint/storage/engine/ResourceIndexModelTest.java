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
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Tenancy;
import io.setpoint.api.v1.Type;
import io.setpoint.storage.Backend.Page;
import io.setpoint.storage.StorageException.Reason;
import io.setpoint.storage.conformance.Change;
import io.setpoint.storage.conformance.Fixtures;
import io.setpoint.storage.engine.StoreEngine.Limits;
import io.setpoint.testkit.DroppingOps;
import io.setpoint.testkit.SeededTheory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.quicktheories.QuickTheory;
import org.quicktheories.api.Pair;
import org.quicktheories.core.Configuration;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

/**
 * Model-based properties of {@link ResourceIndex}: random sequences of CAS writes, deletes,
 * group-version migrations and listings are applied both to the index and to a model that keeps
 * every revision's state in a {@link TreeMap}. After every step the index must agree with the model
 * on reads, listings (at the current revision and, through old page tokens, at past ones), MVCC
 * snapshots, the change history, the owner index, and the compaction floor.
 *
 * <p>Property-based with QuickTheories: a failure is shrunk (see {@link DroppingOps}) and reported
 * with its smallest scenario and the seed. CI runs a fixed seed, so every run checks the same
 * scenarios. QuickTheories' own system properties override the defaults below: {@code ./mvnw -pl
 * storage test -Dtest=ResourceIndexModelTest -DQT_SEED=$RANDOM$RANDOM} explores another seed (a
 * failure prints its seed; pass it back as {@code -DQT_SEED} to replay it), {@code
 * -DQT_EXAMPLES=5000} runs longer.
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

  /** The number of scenarios CI must check. */
  private static final int SCENARIOS = 300;

  /**
   * Examples QuickTheories draws: a few more than {@link #SCENARIOS}, since it skips a scenario it
   * has already drawn (only the short ones repeat).
   */
  private static final int EXAMPLES = 320;

  /** Shrink attempts after a failure; each replays a whole scenario. */
  private static final int SHRINK_CYCLES = 3000;

  private static final long SEED = 0x5e7_901_17L;

  /**
   * The values every op draws, whatever its kind, so that every op takes the same number of draws:
   * shrinking an op's kind or parameters then never shifts the ops after it.
   */
  private record Draw(int slot, boolean owned, DeleteMode mode, int pageSize) {}

  static Gen<Op> op() {
    Gen<Draw> draw =
        integers()
            .between(0, SLOTS - 1)
            .zip(
                Generate.booleans(),
                Generate.enumValues(DeleteMode.class),
                integers().between(1, 4),
                Draw::new);
    // Shrinking moves towards the first kind: a stale update, which never changes the store.
    return Generate.frequency(
        Pair.of(1, draw.<Op>map(d -> new StaleUpdate(d.slot()))),
        Pair.of(4, draw.<Op>map(d -> new Create(d.slot(), d.owned()))),
        Pair.of(5, draw.<Op>map(d -> new Update(d.slot()))),
        Pair.of(1, draw.<Op>map(d -> new Migrate(d.slot()))),
        Pair.of(3, draw.<Op>map(d -> new Delete(d.slot(), d.mode()))),
        Pair.of(2, draw.<Op>map(d -> new StartListing(d.pageSize()))));
  }

  /** One scenario: the history the index keeps, and the ops. */
  record Case(int history, List<Op> ops) {
    Case without(int op) {
      List<Op> fewer = new ArrayList<>(ops);
      fewer.remove(op);
      return new Case(history, fewer);
    }
  }

  static Gen<Case> cases() {
    return integers()
        .between(1, 8)
        .zip(
            lists().of(op()).ofType(lists().<Op, List<Op>>arrayList()).ofSizeBetween(0, 40),
            Case::new);
  }

  /**
   * QuickTheories with this test's defaults, each overridden by QuickTheories' own system property
   * ({@code QT_SEED}, {@code QT_EXAMPLES}, {@code QT_SHRINKS}) when that is set.
   */
  static QuickTheory quickTheory() {
    return SeededTheory.of(SEED, EXAMPLES, SHRINK_CYCLES);
  }

  @Test
  void indexAgreesWithTheModel() {
    Coverage coverage = new Coverage();
    Consumer<Case> property =
        c -> {
          Scenario scenario = new Scenario(c.history());
          scenario.run(c.ops());
          coverage.add(scenario);
        };
    quickTheory()
        .withReporter(new DroppingOps<Case>(property, c -> c.ops().size(), Case::without, 0))
        .forAll(cases())
        .checkAssert(property);
    coverage.check();
  }

  /**
   * How many scenarios reached each interesting path; a guard against a generator that stops
   * reaching them (the model checks are only as good as the states they see). The thresholds are
   * about half the rates the fixed seed reaches, so that other seeds pass too.
   */
  private static final class Coverage {
    int scenarios;
    int compacted;
    int pastListingContinued;
    int listingCompacted;
    int groupVersionMismatch;
    int deleted;
    int owned;

    void add(Scenario s) {
      scenarios++;
      compacted += s.floorReached > 0 ? 1 : 0;
      pastListingContinued += s.pastListingContinued > 0 ? 1 : 0;
      listingCompacted += s.listingCompacted > 0 ? 1 : 0;
      groupVersionMismatch += s.groupVersionMismatch > 0 ? 1 : 0;
      deleted += s.deleted > 0 ? 1 : 0;
      owned += s.owned > 0 ? 1 : 0;
    }

    void check() {
      System.out.printf(
          "ResourceIndexModelTest: %d scenarios; %% compacted %.1f, past listing continued %.1f,"
              + " listing compacted %.1f, group version mismatch %.1f, deleted %.1f, owned %.1f%n",
          scenarios,
          percent(compacted),
          percent(pastListingContinued),
          percent(listingCompacted),
          percent(groupVersionMismatch),
          percent(deleted),
          percent(owned));
      if (System.getProperty(Configuration.EXAMPLES) == null) {
        assertThat(scenarios).as("scenarios checked").isGreaterThanOrEqualTo(SCENARIOS);
      } else if (scenarios < SCENARIOS) {
        return; // a short run asked for with QT_EXAMPLES: too few scenarios for percentages
      }
      assertThat(percent(compacted))
          .as("percent with a compacted history")
          .isGreaterThanOrEqualTo(25);
      assertThat(percent(pastListingContinued))
          .as("percent continuing a listing at a past revision")
          .isGreaterThanOrEqualTo(12);
      assertThat(percent(listingCompacted))
          .as("percent continuing a listing whose revision was compacted")
          .isGreaterThanOrEqualTo(5);
      assertThat(percent(groupVersionMismatch))
          .as("percent reading a migrated resource at the old group version")
          .isGreaterThanOrEqualTo(12);
      assertThat(percent(deleted))
          .as("percent deleting a live resource")
          .isGreaterThanOrEqualTo(20);
      assertThat(percent(owned)).as("percent listing owned children").isGreaterThanOrEqualTo(35);
    }

    private double percent(int count) {
      return 100.0 * count / scenarios;
    }
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

    // Coverage: how often the checks below met each interesting state.
    int floorReached;
    int pastListingContinued;
    int listingCompacted;
    int groupVersionMismatch;
    int deleted;
    int owned;

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
      ResourceIndex.Written written = index.write(given);
      Entry entry = written.entry();
      Resource expected = given.toBuilder().setVersion(Long.toString(revision() + 1)).build();
      assertThat(written.resource()).isEqualTo(expected);
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
        ResourceIndex.Written gone = index.delete(target, version);
        Entry tombstone = gone.entry();
        assertThat(tombstone.deleted()).isTrue();
        assertThat(gone.resource()).isEqualTo(current);
        assertThat(tombstone.resource()).isEqualTo(current);
        assertThat(tombstone.revision()).isEqualTo(revision() + 1);
        commit(Change.delete(current));
        deleted++;
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
          groupVersionMismatch++;
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
          floorReached++;
          continue;
        }
        // The snapshot is the key range; the group version is checked as each is delivered.
        assertThat(index.snapshot(query, at).stream().map(Entry::resource).filter(query::matches).toList())
            .as("snapshot at %s", at)
            .containsExactlyElementsOf(selected(states.get((int) at), WIDGET));
        List<Change> changes =
            index.changesSince(at, query).stream()
                .map(e -> e.hasDelete() ? Change.delete(e.getDelete().getResource()) : Change.upsert(e.getUpsert().getResource()))
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
      owned += children.isEmpty() ? 0 : 1;
    }
  }

  /** A listing whose first page was read at {@code revision}; the rest must read the same state. */
  private record OpenListing(Type type, int pageSize, long revision, int returned, String token) {
    void checkContinuation(Scenario scenario, long floor) {
      Query query = new Query(type, ANY, "");
      if (revision < floor) {
        assertFails(Reason.COMPACTED, () -> scenario.index.list(query, pageSize, token));
        scenario.listingCompacted++;
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
      scenario.pastListingContinued += revision < scenario.revision() && !rest.isEmpty() ? 1 : 0;
    }
  }
}
