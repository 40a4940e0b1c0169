package io.setpoint.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.StringValue;
import io.grpc.StatusRuntimeException;
import io.setpoint.api.Ids;
import io.setpoint.api.Resources;
import io.setpoint.api.Resources.Finalizers;
import io.setpoint.api.Types;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Status;
import io.setpoint.api.v1.Type;
import io.setpoint.resource.ValidationException;
import io.setpoint.resource.ValidationException.FieldViolation;
import io.setpoint.testkit.DroppingOps;
import io.setpoint.testkit.SeededTheory;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.quicktheories.QuickTheory;
import org.quicktheories.api.Pair;
import org.quicktheories.core.Configuration;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

/**
 * Model-based properties of {@link WritePlanner}: random sequences of writes (each part of the
 * incoming resource chosen relative to what is stored: its uid, version, owner, data, metadata,
 * finalizers, deletion mark and statuses; blind or create-only; by a caller that may read the
 * stored resource or not), deletes and status writes of one name, over a fake store that applies
 * what the planner returns, checked after every step against a plain model of what is stored. The
 * properties:
 *
 * <ol type="a">
 *   <li>every write is created, updated, left as it is, or refused exactly as the model says, with
 *       the code (and for an invalid write the fields and rules) the model names;
 *   <li>what the store holds matches the model: the uid of the incarnation, version, generation
 *       (new only with new data), data, metadata (the deletion mark kept), owner and statuses;
 *   <li>the planner draws fresh ids only for what is new: a create's uid and generation, an
 *       update's new generation;
 *   <li>a refusal tells a caller that may not read the stored resource none of its values (uid,
 *       version, owner), and one that may read it the value that conflicted; whether the caller
 *       may read is asked only for such a refusal;
 *   <li>planning is a function of its inputs: the same inputs, with the ids starting at the same
 *       point, give the same answer;
 *   <li>a stored resource written back as it was read is a no-op.
 * </ol>
 *
 * <p>Property-based with QuickTheories, as {@code WorkQueueModelTest}: a failure is shrunk (see
 * {@link DroppingOps}) and reported with its smallest scenario and the seed. CI runs a fixed seed;
 * {@code -DQT_SEED=...} explores another, {@code -DQT_EXAMPLES=...} runs longer.
 */
class WritePlannerModelTest {
  private static final Type WIDGET = Types.of("test", "v1", "Widget");
  private static final Type HOLDER = Types.of("test", "v1", "Holder");
  private static final ID NAME = Ids.of(WIDGET, "w");
  /** The metadata entry besides the finalizers and the deletion mark that writes change. */
  private static final String NOTE = "note";
  /** A deletion mark no Delete of a scenario sets. */
  private static final String FOREIGN_MARK = "2000-01-01T00:00:00Z";
  /** A uid and a version never issued. */
  private static final String NEVER_UID = "id-never";
  private static final String NEVER_VERSION = "99999";

  /** The number of scenarios CI must check. */
  private static final int SCENARIOS = 1000;
  /** Examples QuickTheories draws: a few more than {@link #SCENARIOS}, as it skips repeats. */
  private static final int EXAMPLES = 1020;
  private static final int SHRINK_CYCLES = 10_000;
  private static final long SEED = 0x5e7_91a4L;

  /** One step of a scenario. */
  sealed interface Op {}

  /**
   * A write. Each choice picks a part of the incoming resource relative to what is stored, the
   * lowest (where shrinking goes) the mildest: see {@link Run#input}.
   */
  record Write(int uid, int version, int owner, int data, int note, int finalizers, int mark, int status,
      boolean createOnly, boolean mayRead) implements Op {}

  /** A Delete: marks a resource that has finalizers (once), removes one that has none. */
  record Delete() implements Op {}

  /** A WriteStatus of one of two keys. */
  record SetStatus(int key, int value) implements Op {}

  /** The values every op draws, whatever its kind, so shrinking one never shifts the ops after it. */
  private record Draw(int uid, int version, int owner, int data, int note, int finalizers, int mark, int status,
      int createOnly, boolean mayRead) {}

  static Gen<Op> op() {
    Gen<Integer> six = integers().between(0, 5);
    Gen<Integer> owner = integers().between(0, 7);
    Gen<Integer> createOnly = integers().between(0, 4);
    Gen<Boolean> mayRead = Generate.booleans();
    Gen<Draw> draw = in -> new Draw(six.generate(in), six.generate(in), owner.generate(in), six.generate(in),
        six.generate(in), six.generate(in), six.generate(in), six.generate(in), createOnly.generate(in),
        mayRead.generate(in));
    return Generate.frequency(
        Pair.of(10, draw.<Op>map(d -> new Write(d.uid(), d.version(), d.owner(), d.data(), d.note(),
            d.finalizers(), d.mark(), d.status(), d.createOnly() == 4, d.mayRead()))),
        Pair.of(2, draw.<Op>map(d -> new Delete())),
        Pair.of(1, draw.<Op>map(d -> new SetStatus(d.uid() % 2, d.version() % 2))));
  }

  /** One scenario. */
  record Case(List<Op> ops) {
    Case without(int op) {
      List<Op> fewer = new ArrayList<>(ops);
      fewer.remove(op);
      return new Case(fewer);
    }
  }

  static Gen<Case> cases() {
    return lists().of(op()).ofType(lists().<Op, List<Op>>arrayList()).ofSizeBetween(1, 60).map(Case::new);
  }

  static QuickTheory quickTheory() {
    return SeededTheory.of(SEED, EXAMPLES, SHRINK_CYCLES);
  }

  @Test
  void behavesLikeTheModel() {
    Coverage coverage = new Coverage();
    Consumer<Case> property = c -> {
      Run run = new Run();
      run.play(c.ops());
      coverage.add(run);
    };
    quickTheory()
        .withReporter(new DroppingOps<Case>(property, c -> c.ops().size(), Case::without, 1))
        .forAll(cases())
        .checkAssert(property);
    coverage.check();
  }

  /** What a write comes to: stored anew, or not, or refused. */
  enum Outcome {
    CREATED, UPDATED_DATA, UPDATED_METADATA, UNCHANGED, NOT_FOUND, ABORTED, FAILED_PRECONDITION, ALREADY_EXISTS,
    INVALID, FINALIZED
  }

  /**
   * The model's answer to a write: its outcome and, for a refusal, the gRPC code or the invalid
   * fields and rules; {@code tells} names the stored value a refusal shows a reader.
   */
  record Expected(Outcome outcome, String refusal, String tells) {
    static Expected of(Outcome outcome) {
      return new Expected(outcome, null, null);
    }

    static Expected refused(Outcome outcome, String tells) {
      return new Expected(outcome, outcome.name(), tells);
    }

    static Expected invalid(String fieldsAndRules, String tells) {
      return new Expected(Outcome.INVALID, "INVALID " + fieldsAndRules, tells);
    }
  }

  /** The model: what the store holds, in plain values; {@code exists} false when nothing. */
  static final class Model {
    boolean exists;
    String uid;
    String version;
    String generation;
    String data;
    String note;
    /** The finalizers as the metadata entry holds them: "", "a" or "a b". */
    String finalizers = "";
    String mark;
    String owner;
    final Map<String, String> statuses = new TreeMap<>();
    /** Uids and versions issued before the current ones. */
    final List<String> pastUids = new ArrayList<>();
    final List<String> pastVersions = new ArrayList<>();

    void gone() {
      pastUids.add(uid);
      pastVersions.add(version);
      exists = false;
      uid = version = generation = data = note = mark = owner = null;
      finalizers = "";
      statuses.clear();
    }
  }

  /** Fresh ids in order, "id-0001" on; counts what was drawn. */
  static final class IdSource implements Supplier<String> {
    int drawn;

    IdSource(int drawn) {
      this.drawn = drawn;
    }

    @Override
    public String get() {
      return id(++drawn);
    }

    static String id(int n) {
      return String.format("id-%04d", n);
    }
  }

  /** One scenario: the planner, the fake store it plans over, and the model beside them. */
  static final class Run {
    final IdSource ids = new IdSource(0);
    final WritePlanner planner = new WritePlanner(ids);
    final Model model = new Model();
    final List<String> log = new ArrayList<>();
    /** The outcomes reached, a refusal by its code or its fields and rules. */
    final Set<String> reached = new HashSet<>();
    Resource stored;
    int versions = 100_000;
    int deletes;
    boolean recreated;
    boolean hiddenRefusal;

    void play(List<Op> ops) {
      for (Op op : ops) {
        log.add(op.toString());
        switch (op) {
          case Write w -> write(w);
          case Delete d -> delete();
          case SetStatus s -> setStatus(s);
        }
        check();
      }
    }

    void write(Write w) {
      Incoming in = incoming(w);
      Resource input = input(in);
      Expected expected = expect(in);
      int[] asked = {0};
      WritePlanner.Options options = new WritePlanner.Options(in.createOnly(), () -> {
        asked[0]++;
        return in.mayRead();
      });
      int before = ids.drawn;
      Object answer = answer(() -> planner.plan(stored, input, options));
      boolean mayReadAsked = asked[0] > 0;
      // (e) the same inputs, the ids starting at the same point, give the same answer
      Object again = answer(() -> new WritePlanner(new IdSource(before)).plan(stored, input, options));
      assertThat(again).as("(e) planned twice; log %s", log).isEqualTo(answer);
      if (answer instanceof String refused) {
        assertThat(refusal(refused)).as("(a) the refusal of %s; log %s", w, log).isEqualTo(expected.refusal());
        checkDisclosure(in, message(refused), expected);
        assertThat(mayReadAsked).as("(d) asked whether the caller may read; log %s", log)
            .isEqualTo(expected.tells() != null);
        assertThat(ids.drawn).as("(c) ids drawn for a refusal; log %s", log).isEqualTo(before);
        reached.add(expected.refusal());
        return;
      }
      assertThat(mayReadAsked).as("(d) asked whether the caller may read, for %s; log %s", expected, log).isFalse();
      Resource next = (Resource) answer;
      if (next == stored) {
        assertThat(expected.outcome()).as("(a) %s left the resource as it was; log %s", w, log)
            .isEqualTo(Outcome.UNCHANGED);
        assertThat(ids.drawn).as("(c) ids drawn for a no-op; log %s", log).isEqualTo(before);
        reached.add(Outcome.UNCHANGED.name());
        return;
      }
      assertThat(expected.outcome()).as("(a) %s was stored anew; log %s", w, log)
          .isIn(Outcome.CREATED, Outcome.UPDATED_DATA, Outcome.UPDATED_METADATA);
      reached.add(expected.outcome().name());
      // The store's compare-and-swap: the plan carries the stored version and incarnation.
      assertThat(next.getVersion()).as("the version of the plan").isEqualTo(stored == null ? "" : stored.getVersion());
      assertThat(next.getStatusMap()).as("the statuses of the plan")
          .isEqualTo(stored == null ? Map.of() : stored.getStatusMap());
      if (stored != null) {
        assertThat(next.getId()).as("the id of the plan").isEqualTo(stored.getId());
      }
      switch (expected.outcome()) {
        case CREATED -> {
          assertThat(ids.drawn).as("(c) ids drawn for a create; log %s", log).isEqualTo(before + 2);
          recreated |= !model.pastUids.isEmpty();
          model.exists = true;
          model.uid = IdSource.id(before + 1);
          model.generation = IdSource.id(before + 2);
        }
        case UPDATED_DATA -> {
          assertThat(ids.drawn).as("(c) ids drawn for new data; log %s", log).isEqualTo(before + 1);
          model.pastVersions.add(model.version);
          model.generation = IdSource.id(before + 1);
        }
        default -> {
          assertThat(ids.drawn).as("(c) ids drawn for new metadata; log %s", log).isEqualTo(before);
          model.pastVersions.add(model.version);
        }
      }
      stored = Resources.withVersion(next, Integer.toString(++versions));
      model.version = stored.getVersion();
      model.data = in.data();
      model.note = in.note();
      model.finalizers = in.finalizers();
      model.owner = in.owner();
      // (f) what was read, written back as it is, changes nothing
      Resource read = stored;
      assertThat(new WritePlanner(() -> {
        throw new AssertionError("a write-back drew a fresh id");
      }).plan(read, read, new WritePlanner.Options(false, () -> true))).as("(f) written back").isSameAs(read);
      if (Finalizers.isMarkedForDeletion(stored) && Finalizers.of(stored).isEmpty()) {
        // What the write path does next: the last finalizer is gone, so is the resource.
        stored = null;
        model.gone();
        reached.add(Outcome.FINALIZED.name());
      }
    }

    /** The answer of {@code plan}: the resource, or the refusal's class, code or fields, and message. */
    private static Object answer(Supplier<Resource> plan) {
      try {
        return plan.get();
      } catch (StatusRuntimeException e) {
        return e.getStatus().getCode() + "\n" + e.getStatus().getDescription();
      } catch (ValidationException e) {
        return "INVALID " + e.violations().stream().map(v -> v.field() + " " + v.rule()).collect(Collectors.joining(", "))
            + "\n" + e.violations().stream().map(FieldViolation::message).collect(Collectors.joining("; "));
      }
    }

    private static String refusal(String answer) {
      return answer.substring(0, answer.indexOf('\n'));
    }

    private static String message(String answer) {
      return answer.substring(answer.indexOf('\n') + 1);
    }

    /** (d) Nothing stored is told to a caller that may not read it; the conflicting value to one that may. */
    private void checkDisclosure(Incoming in, String message, Expected expected) {
      if (!model.exists) {
        return;
      }
      if (!in.mayRead()) {
        hiddenRefusal |= expected.tells() != null;
        assertThat(message).as("(d) a refusal told a non-reader; log %s", log)
            .doesNotContain(model.uid).doesNotContain(model.version);
        if (model.owner != null) {
          assertThat(message).as("(d) a refusal told a non-reader the owner; log %s", log).doesNotContain(model.owner);
        }
        if (expected.tells() != null && expected.outcome() != Outcome.ALREADY_EXISTS) {
          assertThat(message).contains(Disclosure.HIDDEN);
        }
      } else if (expected.tells() != null) {
        assertThat(message).as("(d) a refusal told a reader what conflicted; log %s", log).contains(expected.tells());
      }
    }

    /**
     * The incoming resource's parts, each chosen relative to what the model says is stored.
     *
     * @param finalizers as the metadata entry holds them: "", "a" or "a b"
     * @param mark the deletion mark, or null
     */
    record Incoming(String uid, String version, String owner, String data, String note, String finalizers,
        String mark, Map<String, String> statuses, boolean createOnly, boolean mayRead) {}

    /** What {@code w} sends, over what the model holds now. */
    Incoming incoming(Write w) {
      String uid = switch (w.uid()) {
        case 0, 1, 2 -> "";
        case 3, 4 -> model.exists ? model.uid : NEVER_UID;
        default -> model.pastUids.isEmpty() ? NEVER_UID : model.pastUids.getLast();
      };
      String version = switch (w.version()) {
        case 0, 1, 2 -> "";
        case 3, 4 -> model.exists ? model.version : NEVER_VERSION;
        default -> model.pastVersions.isEmpty() ? NEVER_VERSION : model.pastVersions.getLast();
      };
      String owner = switch (w.owner()) {
        case 0, 1, 2, 3, 4 -> model.owner; // none for a create
        case 5 -> null;
        case 6 -> "holder-a";
        default -> "holder-b";
      };
      String data = w.data() < 3 ? (model.exists ? model.data : "d1") : "d" + (w.data() - 2);
      String note = switch (w.note()) {
        case 0, 1, 2 -> model.note;
        case 3 -> null;
        case 4 -> "n1";
        default -> "n2";
      };
      String finalizers = switch (w.finalizers()) {
        case 0, 1, 2 -> model.finalizers;
        case 3 -> "";
        case 4 -> "a";
        default -> "a b";
      };
      String mark = switch (w.mark()) {
        case 0, 1, 2, 3 -> model.mark; // repeated, or none when there is none
        case 4 -> null;
        default -> FOREIGN_MARK;
      };
      Map<String, String> statuses = new TreeMap<>();
      if (w.status() >= 4) {
        statuses.putAll(model.statuses);
      }
      if (w.status() == 5) {
        statuses.put("other", "s9");
      }
      return new Incoming(uid, version, owner, data, note, finalizers, mark, statuses, w.createOnly(), w.mayRead());
    }

    /** The incoming resource itself. */
    static Resource input(Incoming in) {
      Resource.Builder out = Resource.newBuilder()
          .setId(NAME.toBuilder().setUid(in.uid()))
          .setVersion(in.version())
          .setData(Any.pack(StringValue.of(in.data())));
      if (in.owner() != null) {
        out.setOwner(holder(in.owner()));
      }
      if (in.note() != null) {
        out.putMetadata(NOTE, in.note());
      }
      if (!in.finalizers().isEmpty()) {
        out.putMetadata(Finalizers.KEY, in.finalizers());
      }
      if (in.mark() != null) {
        out.putMetadata(Finalizers.DELETION_TIMESTAMP, in.mark());
      }
      in.statuses().forEach((key, value) -> out.putStatus(key, status(value)));
      return out.build();
    }

    /** What the model says of a write, its checks in the order they apply. */
    Expected expect(Incoming in) {
      if (in.createOnly() && (!in.uid().isEmpty() || !in.version().isEmpty())) {
        List<String> fields = new ArrayList<>();
        if (!in.uid().isEmpty()) {
          fields.add("resource.id.uid create-only");
        }
        if (!in.version().isEmpty()) {
          fields.add("resource.version create-only");
        }
        return Expected.invalid(String.join(", ", fields), null);
      }
      if (!model.exists) {
        if (!in.uid().isEmpty()) {
          return Expected.refused(Outcome.NOT_FOUND, null);
        }
        if (!in.version().isEmpty()) {
          return Expected.refused(Outcome.ABORTED, null);
        }
        if (!in.statuses().isEmpty()) {
          return Expected.invalid("resource.status write-status", null);
        }
        if (in.mark() != null) {
          return Expected.invalid("resource.metadata reserved", null);
        }
        return Expected.of(Outcome.CREATED);
      }
      if (in.createOnly()) {
        return Expected.refused(Outcome.ALREADY_EXISTS, model.uid);
      }
      if (!in.uid().isEmpty() && !in.uid().equals(model.uid)) {
        return Expected.refused(Outcome.FAILED_PRECONDITION, model.uid);
      }
      if (!in.version().isEmpty() && !in.version().equals(model.version)) {
        return Expected.refused(Outcome.ABORTED, model.version);
      }
      if (!same(in.owner(), model.owner)) {
        return Expected.invalid("resource.owner immutable", model.owner == null ? "none" : model.owner);
      }
      if (!in.statuses().isEmpty() && !in.statuses().equals(model.statuses)) {
        return Expected.invalid("resource.status write-status", null);
      }
      if (in.mark() != null && !in.mark().equals(model.mark)) {
        return Expected.invalid("resource.metadata reserved", null);
      }
      boolean sameData = in.data().equals(model.data);
      if (sameData && same(in.note(), model.note) && in.finalizers().equals(model.finalizers)) {
        return Expected.of(Outcome.UNCHANGED);
      }
      if (model.mark != null && !sameData) {
        return Expected.invalid("resource.data deleting", null);
      }
      if (model.mark != null && !names(model.finalizers).containsAll(names(in.finalizers()))) {
        return Expected.invalid("resource.metadata deleting", null);
      }
      return Expected.of(sameData ? Outcome.UPDATED_METADATA : Outcome.UPDATED_DATA);
    }

    void delete() {
      if (!model.exists) {
        return;
      }
      if (model.finalizers.isEmpty()) {
        stored = null;
        model.gone();
        return;
      }
      if (model.mark == null) {
        String mark = String.format("2024-01-01T00:%02d:00Z", ++deletes % 60);
        stored = Resources.withVersion(
            stored.toBuilder().putMetadata(Finalizers.DELETION_TIMESTAMP, mark).build(), Integer.toString(++versions));
        model.pastVersions.add(model.version);
        model.version = stored.getVersion();
        model.mark = mark;
      }
    }

    void setStatus(SetStatus s) {
      String key = "k" + s.key();
      String value = "s" + s.value();
      if (!model.exists || value.equals(model.statuses.get(key))) {
        return;
      }
      stored = Resources.withVersion(stored.toBuilder().putStatus(key, status(value)).build(), Integer.toString(++versions));
      model.pastVersions.add(model.version);
      model.version = stored.getVersion();
      model.statuses.put(key, value);
    }

    /** (b) The store holds what the model says. */
    void check() {
      if (!model.exists) {
        assertThat(stored).as("(b) stored; log %s", log).isNull();
        return;
      }
      assertThat(stored).as("(b) stored; log %s", log).isNotNull();
      assertThat(stored.getId()).as("(b) id; log %s", log).isEqualTo(NAME.toBuilder().setUid(model.uid).build());
      assertThat(stored.getVersion()).as("(b) version; log %s", log).isEqualTo(model.version);
      assertThat(stored.getGeneration()).as("(b) generation; log %s", log).isEqualTo(model.generation);
      assertThat(unpack(stored.getData())).as("(b) data; log %s", log).isEqualTo(model.data);
      Map<String, String> metadata = new HashMap<>();
      if (model.note != null) {
        metadata.put(NOTE, model.note);
      }
      if (!model.finalizers.isEmpty()) {
        metadata.put(Finalizers.KEY, model.finalizers);
      }
      if (model.mark != null) {
        metadata.put(Finalizers.DELETION_TIMESTAMP, model.mark);
      }
      assertThat(stored.getMetadataMap()).as("(b) metadata; log %s", log).isEqualTo(metadata);
      assertThat(stored.hasOwner() ? stored.getOwner().getName() : null).as("(b) owner; log %s", log)
          .isEqualTo(model.owner);
      Map<String, String> statuses = new TreeMap<>();
      stored.getStatusMap().forEach((key, value) -> statuses.put(key, value.getObservedGeneration()));
      assertThat(statuses).as("(b) statuses; log %s", log).isEqualTo(model.statuses);
    }
  }

  private static ID holder(String name) {
    return Ids.of(HOLDER, name).toBuilder().setUid("uid-of-" + name).build();
  }

  private static Status status(String value) {
    return Status.newBuilder().setObservedGeneration(value).build();
  }

  private static Set<String> names(String finalizers) {
    return finalizers.isEmpty() ? Set.of() : new LinkedHashSet<>(Arrays.asList(finalizers.split(" ")));
  }

  private static boolean same(String a, String b) {
    return a == null ? b == null : a.equals(b);
  }

  private static String unpack(Any data) {
    try {
      return data.unpack(StringValue.class).getValue();
    } catch (InvalidProtocolBufferException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** What every run of the suite must reach in a share of its scenarios, with that share in percent. */
  private static final Map<String, Double> MUST_REACH = Map.ofEntries(
      Map.entry("CREATED", 50.0),
      Map.entry("UPDATED_DATA", 20.0),
      Map.entry("UPDATED_METADATA", 30.0),
      Map.entry("UNCHANGED", 30.0),
      Map.entry("FINALIZED", 10.0),
      Map.entry("NOT_FOUND", 40.0),
      Map.entry("ABORTED", 40.0),
      Map.entry("FAILED_PRECONDITION", 30.0),
      Map.entry("ALREADY_EXISTS", 20.0),
      Map.entry("INVALID resource.id.uid create-only", 30.0),
      Map.entry("INVALID resource.version create-only", 30.0),
      Map.entry("INVALID resource.owner immutable", 30.0),
      Map.entry("INVALID resource.status write-status", 30.0),
      Map.entry("INVALID resource.metadata reserved", 30.0),
      Map.entry("INVALID resource.data deleting", 15.0),
      Map.entry("INVALID resource.metadata deleting", 4.0));

  /** How many scenarios reached each outcome; a guard against a generator that stops reaching one. */
  private static final class Coverage {
    int scenarios;
    final Map<String, Integer> reached = new TreeMap<>();
    int recreated;
    int hiddenRefusals;

    void add(Run run) {
      scenarios++;
      run.reached.forEach(outcome -> reached.merge(outcome, 1, Integer::sum));
      recreated += run.recreated ? 1 : 0;
      hiddenRefusals += run.hiddenRefusal ? 1 : 0;
    }

    void check() {
      System.out.printf("WritePlannerModelTest: %d scenarios; %% reaching each outcome: %s; a recreate %.1f;"
          + " a refusal that hid a stored value %.1f%n", scenarios,
          reached.entrySet().stream().map(e -> e.getKey() + " " + String.format("%.1f", percent(e.getValue())))
              .collect(Collectors.joining(", ")),
          percent(recreated), percent(hiddenRefusals));
      if (System.getProperty(Configuration.EXAMPLES) == null) {
        assertThat(scenarios).as("scenarios checked").isGreaterThanOrEqualTo(SCENARIOS);
      } else if (scenarios < SCENARIOS) {
        return; // a short run asked for with QT_EXAMPLES: too few scenarios for percentages
      }
      MUST_REACH.forEach((outcome, share) -> assertThat(percent(reached.getOrDefault(outcome, 0)))
          .as("percent reaching %s", outcome).isGreaterThanOrEqualTo(share));
      assertThat(percent(recreated)).as("percent creating a name again").isGreaterThanOrEqualTo(20);
      assertThat(percent(hiddenRefusals)).as("percent hiding a stored value").isGreaterThanOrEqualTo(30);
    }

    private double percent(int count) {
      return 100.0 * count / scenarios;
    }
  }
}
