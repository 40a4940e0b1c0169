package io.setpoint.bench.jmh;

import io.setpoint.api.v1.Resource;
import io.setpoint.storage.engine.StoreEngine.Limits;
import io.setpoint.storage.memory.MemoryBackend;
import java.util.List;
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
import org.openjdk.jmh.infra.ThreadParams;

/**
 * CAS write throughput: updates of existing resources, each sent with its current version, so
 * every write passes the compare-and-swap. Each benchmark thread owns a disjoint share of the keys
 * and remembers the version it last stored, so threads never conflict and no write is retried.
 * No watch is open: this measures the index and the writer lock alone.
 *
 * <p>The update re-sends the stored resource unchanged except for its version; building a changed
 * payload is the caller's cost, not the store's.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class MemoryBackendCasBenchmark extends StandardRun {
  /** How many resources exist; they are updated round-robin. */
  static final int KEYS = 10_000;

  /** One backend holding {@link #KEYS} Artists, shared by every benchmark thread. */
  @State(Scope.Benchmark)
  public static class Store {
    /**
     * Revisions of history the backend retains ({@link Limits#history()}). The default is the
     * backend's; {@code -p history=4096} shows what retaining history costs (GC of old revisions).
     */
    @Param("65536")
    int history;

    MemoryBackend backend;
    List<Resource> created;

    @Setup(Level.Trial)
    public void setUp() {
      backend = new MemoryBackend(new Limits(history, Limits.DEFAULT.watchBuffer()));
      created = Fixture.create(backend, Fixture.ARTIST, Fixture.HOME, "cas-", KEYS);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
      backend.close();
    }
  }

  /** The keys one thread owns (every threadCount-th, from its index), at their current versions. */
  @State(Scope.Thread)
  public static class OwnKeys {
    Resource[] current;
    int next;

    @Setup(Level.Trial)
    public void setUp(Store store, ThreadParams thread) {
      current = new Resource[KEYS / thread.getThreadCount()];
      for (int i = 0; i < current.length; i++) {
        current[i] = store.created.get(i * thread.getThreadCount() + thread.getThreadIndex());
      }
    }

    /** Updates the next owned key with its current version and remembers the new one. */
    Resource update(MemoryBackend backend) {
      Resource stored = backend.writeCas(current[next]);
      current[next] = stored;
      next = next + 1 == current.length ? 0 : next + 1;
      return stored;
    }
  }

  @Benchmark
  @Threads(1)
  public Resource casWrite1Thread(Store store, OwnKeys keys) {
    return keys.update(store.backend);
  }

  @Benchmark
  @Threads(2)
  public Resource casWrite2Threads(Store store, OwnKeys keys) {
    return keys.update(store.backend);
  }
}
