package io.setpoint.loadgen.chaos;

import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import io.grpc.Status;
import io.setpoint.api.Ids;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.client.SetpointClient;
import io.setpoint.client.SetpointException;
import io.setpoint.demo.DemoTypes;
import io.setpoint.demo.v2.Artist;
import io.setpoint.loadgen.chaos.Operation.Kind;
import io.setpoint.loadgen.chaos.Operation.Outcome;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * One client of the run: a closed loop of operations, each on a key picked from the shared ones
 * and its own and sent to a member picked at random, through the Java client library (a
 * connection per member, as an application would hold), until the run ends or its operation count is up.
 * Every value it writes is unique ({@code c<client>-<n>}), so that a value names the write.
 */
final class Worker implements Runnable {
  /** The prefix of every key the clients write; the watchers watch it. */
  static final String KEY_PREFIX = "chaos-";

  private final int id;
  private final ChaosConfig config;
  private final List<String> endpoints;
  private final BooleanSupplier running;
  private final Consumer<Operation> sink;
  private final SplittableRandom random;
  /** What this client last learnt of each key: the version and value, or absent (version 0). */
  private final Map<String, Known> known = new HashMap<>();
  private long written;

  private record Known(String version, String value) {}

  Worker(int id, ChaosConfig config, List<String> endpoints, BooleanSupplier running, Consumer<Operation> sink) {
    this.id = id;
    this.config = config;
    this.endpoints = List.copyOf(endpoints);
    this.running = running;
    this.sink = sink;
    this.random = new SplittableRandom(config.seed() * 1_000_003 + id);
  }

  static String sharedKey(int k) {
    return KEY_PREFIX + "s" + k;
  }

  static String ownKey(int client, int k) {
    return KEY_PREFIX + "c" + client + "-" + k;
  }

  @Override
  public void run() {
    List<SetpointClient> clients = new ArrayList<>();
    for (String endpoint : endpoints) {
      clients.add(SetpointClient.builder().address(endpoint).deadline(config.deadline()).build());
    }
    try {
      for (long n = 0; n < config.maxOpsPerClient() && running.getAsBoolean(); n++) {
        if (Thread.currentThread().isInterrupted()) {
          return;
        }
        int member = random.nextInt(clients.size());
        String key = config.ownKeys() == 0 || random.nextBoolean()
            ? sharedKey(random.nextInt(config.sharedKeys()))
            : ownKey(id, random.nextInt(config.ownKeys()));
        sink.accept(once(member, clients.get(member), key, pick()));
      }
    } finally {
      clients.forEach(SetpointClient::close);
    }
  }

  /** The operation mix: a quarter consistent reads, the rest spread over the other kinds. */
  private Kind pick() {
    int roll = random.nextInt(100);
    if (roll < 25) {
      return Kind.STRONG_READ;
    } else if (roll < 40) {
      return Kind.READ;
    } else if (roll < 65) {
      return Kind.PUT;
    } else if (roll < 85) {
      return Kind.CAS;
    } else if (roll < 93) {
      return Kind.CREATE;
    }
    return Kind.DELETE;
  }

  private Operation once(int member, SetpointClient client, String key, Kind kind) {
    ID id = Ids.of(DemoTypes.ARTIST, key);
    Known last = known.get(key);
    if (kind == Kind.CAS && (last == null || last.version() == null)) {
      // Nothing to swap from: a CAS needs a version, so this client creates instead.
      kind = Kind.CREATE;
    }
    String value = kind.writes() && kind != Kind.DELETE ? "c" + this.id + "-" + (++written) : null;
    String expected = kind == Kind.CAS ? last.value() : null;
    long call = System.nanoTime();
    try {
      Resource answer = switch (kind) {
        case STRONG_READ -> client.findConsistent(id).orElse(null);
        case READ -> client.read(id);
        case PUT -> client.write(resource(id, value, ""));
        case CAS -> client.write(resource(id, value, last.version()));
        case CREATE -> client.create(resource(id, value, ""));
        case DELETE -> {
          client.delete(id);
          yield null;
        }
      };
      long ret = System.nanoTime();
      String seen = kind.writes() ? value : valueOf(answer);
      known.put(key, answer == null ? new Known(null, null) : new Known(answer.getVersion(), seen));
      return new Operation(this.id, member, key, kind, Outcome.OK, call, ret, expected, seen,
          answer == null ? 0 : revision(answer.getVersion()), "OK");
    } catch (SetpointException e) {
      long ret = System.nanoTime();
      Outcome outcome = outcome(kind, e.code());
      String seen = value;
      if (kind == Kind.READ && e.code() == Status.Code.NOT_FOUND) {
        outcome = Outcome.OK; // a default read of an absent key
        seen = null;
        known.put(key, new Known(null, null));
      } else if (outcome == Outcome.FAILED) {
        known.remove(key); // this client's view is stale: its next CAS becomes a create, or reads first
      }
      return new Operation(this.id, member, key, kind, outcome, call, ret, expected, seen, 0,
          outcome == Outcome.OK ? "OK" : e.code().name());
    }
  }

  /**
   * Conflicts surely did nothing and say the key held something else; other answers that refuse
   * a request say nothing of the key; every other failure (a deadline, an unavailable member, a
   * blind write that gave up) may or may not have taken effect.
   */
  private static Outcome outcome(Kind kind, Status.Code code) {
    return switch (code) {
      case ABORTED, NOT_FOUND -> kind == Kind.CAS ? Outcome.FAILED : Outcome.UNKNOWN;
      case ALREADY_EXISTS -> kind == Kind.CREATE ? Outcome.FAILED : Outcome.UNKNOWN;
      case INVALID_ARGUMENT, RESOURCE_EXHAUSTED, PERMISSION_DENIED, UNAUTHENTICATED, FAILED_PRECONDITION ->
          kind.writes() ? Outcome.REJECTED : Outcome.UNKNOWN;
      default -> Outcome.UNKNOWN;
    };
  }

  private static Resource resource(ID id, String value, String version) {
    return Resource.newBuilder()
        .setId(id)
        .setVersion(version)
        .setData(Any.pack(Artist.newBuilder().setName(value).build()))
        .build();
  }

  /** The value a stored resource holds (its Artist's name), or null for none. */
  static String valueOf(Resource resource) {
    if (resource == null) {
      return null;
    }
    try {
      return resource.getData().unpack(Artist.class).getName();
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException("a member answered " + Ids.format(resource.getId()) + " with data that is no Artist", e);
    }
  }

  static long revision(String version) {
    try {
      return version.isEmpty() ? 0 : Long.parseLong(version);
    } catch (NumberFormatException e) {
      return 0;
    }
  }
}
