package io.setpoint.cli;

import static org.awaitility.Awaitility.await;

import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import io.grpc.Status;
import io.setpoint.api.Ids;
import io.setpoint.api.Tenancies;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.client.SetpointClient;
import io.setpoint.client.SetpointException;
import io.setpoint.demo.DemoTypes;
import io.setpoint.demo.v2.Artist;
import io.setpoint.testkit.KeyHistory;
import io.setpoint.testkit.KeyHistory.Result;
import java.time.Duration;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * A compare-and-swap load on one register (a demo Artist whose description holds the value) for
 * tests of a changing cluster: each client reads the register strongly and swaps it to a value of
 * its own, and every call goes into a {@link KeyHistory} to be checked for linearizability.
 */
final class RegisterLoad {
  static final ID REGISTER = Ids.of(DemoTypes.ARTIST, Tenancies.of("default", "default"), "register");
  private static final Duration WAIT = Duration.ofSeconds(90);

  final KeyHistory history = new KeyHistory();
  /** The calls that failed, other than swaps lost to another client's: the call, its code and the start of its message. */
  final Queue<String> failures = new ConcurrentLinkedQueue<>();

  /**
   * Creates the register through {@code client}, once the cluster takes writes. It is created
   * once: a write without a version is an upsert, not a compare-and-swap.
   */
  void create(SetpointClient client) {
    long call = System.nanoTime();
    await().atMost(WAIT).ignoreExceptions().until(() -> client.write(register("0:init", "")) != null);
    history.cas(call, System.nanoTime(), Result.OK, null, "0:init");
  }

  /** Swaps until {@code running} is false, each round through the client {@code pick} gives; returns the swaps acknowledged. */
  int run(String name, Supplier<SetpointClient> pick, AtomicBoolean running) {
    int succeeded = 0;
    for (int seq = 0; running.get(); seq++) {
      SetpointClient client = pick.get();
      long readCall = System.nanoTime();
      Resource current;
      try {
        current = client.readConsistent(REGISTER);
        history.read(readCall, System.nanoTime(), value(current));
      } catch (SetpointException e) {
        failures.add(failure("read", e));
        continue; // a failed read has no effect; it is left out
      }
      String value = name + "-" + seq;
      long call = System.nanoTime();
      try {
        client.write(register(value, current.getVersion()));
        history.cas(call, System.nanoTime(), Result.OK, value(current), value);
        succeeded++;
      } catch (SetpointException e) {
        // ABORTED: the version was not the stored one, so nothing was written; anything else may have been.
        boolean lost = e.code() == Status.Code.ABORTED;
        if (!lost) {
          failures.add(failure("write", e));
        }
        history.cas(call, System.nanoTime(), lost ? Result.FAILED : Result.UNKNOWN, value(current), value);
      }
    }
    return succeeded;
  }

  private static String failure(String call, SetpointException e) {
    String message = String.valueOf(e.getMessage());
    return call + " " + e.code() + " (" + message.substring(0, Math.min(message.length(), 160)) + ")";
  }

  /** Waits until {@code more} further operations completed, so that each phase of a test does some work. */
  void awaitProgress(int more) {
    int target = history.ops().size() + more;
    await().atMost(WAIT).until(() -> history.ops().size() >= target);
  }

  /** The register as {@code client} reads it, strongly. */
  static String read(SetpointClient client) {
    return value(client.readConsistent(REGISTER));
  }

  private static Resource register(String value, String version) {
    return Resource.newBuilder().setId(REGISTER).setVersion(version)
        .setData(Any.pack(Artist.newBuilder().setName("register").setDescription(value).build())).build();
  }

  private static String value(Resource r) {
    try {
      return r.getData().unpack(Artist.class).getDescription();
    } catch (InvalidProtocolBufferException e) {
      throw new AssertionError(e);
    }
  }
}
