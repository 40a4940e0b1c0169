package io.setpoint.bench.jmh;

import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.WatchEvent;
import io.setpoint.storage.Backend.WatchCursor;
import io.setpoint.storage.StorageException;
import io.setpoint.storage.memory.MemoryBackend;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;

/**
 * WatchCursor fan-out: the time from a {@code writeCas} call until the last of {@code watchers} open
 * watches has received the event it causes. Every watch selects every write.
 *
 * <p>Each watch is drained by its own consumer thread that only takes the event and counts it;
 * the benchmark thread writes, then parks until all consumers have counted, so exactly one event
 * is in flight and each sample is one write's full fan-out. Consumers are virtual threads by
 * default because that is how the server pumps watches into gRPC streams (one virtual thread per
 * stream, see WatchStreamer); {@code consumers=platform} runs the same with 1,000 OS threads for
 * comparison.
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Threads(1)
@State(Scope.Benchmark)
public class MemoryBackendWatchFanoutBenchmark extends StandardRun {
  /** How many resources the watched range holds; writes update them round-robin. */
  static final int KEYS = 100;

  @Param("1000")
  int watchers;

  @Param({"virtual", "platform"})
  String consumers;

  MemoryBackend backend;
  Resource[] current;
  int next;
  /** Counts down once per consumer for the event in flight; replaced before each write. */
  volatile CountDownLatch received;

  private final List<Thread> threads = new ArrayList<>();

  @Setup(Level.Trial)
  public void setUp() throws InterruptedException {
    backend = new MemoryBackend();
    current = Fixture.create(backend, Fixture.ARTIST, Fixture.HOME, "fan-", KEYS).toArray(Resource[]::new);
    Thread.Builder builder = switch (consumers) {
      case "virtual" -> Thread.ofVirtual().name("watcher-", 0);
      case "platform" -> Thread.ofPlatform().daemon().name("watcher-", 0);
      default -> throw new IllegalArgumentException("consumers must be virtual or platform: " + consumers);
    };
    for (int i = 0; i < watchers; i++) {
      // Each watch gets its own copy of the query, as each client's request would.
      WatchCursor watch = backend.watch(Fixture.copyOf(Fixture.ARTIST), Fixture.copyOf(Fixture.HOME), "fan-", 0);
      drainSnapshot(watch);
      threads.add(builder.start(() -> consume(watch)));
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() throws InterruptedException {
    backend.close(); // closes every watch, which ends every consumer
    for (Thread t : threads) {
      t.join();
    }
  }

  /** One CAS update, then the wait until every watcher has its event. */
  @Benchmark
  public Resource writeUntilAllWatchersReceived() throws InterruptedException {
    CountDownLatch all = new CountDownLatch(watchers);
    received = all;
    Resource stored = backend.writeCas(current[next]);
    current[next] = stored;
    next = next + 1 == KEYS ? 0 : next + 1;
    if (!all.await(30, TimeUnit.SECONDS)) {
      throw new IllegalStateException(all.getCount() + " watchers did not receive revision " + stored.getVersion());
    }
    return stored;
  }

  /** Reads the snapshot of {@link #KEYS} upserts and the end-of-snapshot marker. */
  private static void drainSnapshot(WatchCursor watch) throws InterruptedException {
    int upserts = 0;
    for (WatchEvent e = watch.next(); !e.hasEndOfSnapshot(); e = watch.next()) {
      upserts++;
    }
    if (upserts != KEYS) {
      throw new IllegalStateException("snapshot held " + upserts + " resources, expected " + KEYS);
    }
  }

  /** A watcher: takes each live event and counts it, until the backend closes the watch. */
  private void consume(WatchCursor watch) {
    try {
      while (true) {
        watch.next();
        received.countDown();
      }
    } catch (StorageException closed) {
      // WATCH_CLOSED at tear-down
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
