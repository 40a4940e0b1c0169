package io.setpoint.bench.jmh;

import io.setpoint.api.v1.Tenancy;
import io.setpoint.api.v1.Type;
import io.setpoint.storage.Backend.Page;
import io.setpoint.storage.Consistency;
import io.setpoint.storage.memory.MemoryBackend;
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

/**
 * Listing 10,000 resources by name prefix out of a store of 100,000. The noise is chosen to sit
 * next to the match in every dimension of the key: the same type and tenancy with another prefix,
 * the same type and prefix in another namespace, and another type with the same tenancy and prefix.
 *
 * <p>Reported both as lists per second and as time per list. {@code pageSize} 0 reads everything
 * in one page; otherwise the listing follows page tokens to the end, as a paging client would.
 */
@BenchmarkMode({Mode.Throughput, Mode.AverageTime})
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@State(Scope.Benchmark)
public class MemoryBackendListBenchmark extends StandardRun {
  static final int MATCHING = 10_000;
  static final int NOISE_PER_KIND = 30_000;

  @Param({"0", "1000"})
  int pageSize;

  MemoryBackend backend;
  /** The query's type and tenancy, equal to but not the same objects as the stored ones. */
  Type type;
  Tenancy tenancy;

  @Setup(Level.Trial)
  public void setUp() {
    backend = new MemoryBackend();
    Fixture.create(backend, Fixture.ARTIST, Fixture.HOME, "noise-", NOISE_PER_KIND);
    Fixture.create(backend, Fixture.ARTIST, Fixture.HOME, "target-", MATCHING);
    Fixture.create(backend, Fixture.ARTIST, Fixture.ELSEWHERE, "target-", NOISE_PER_KIND);
    Fixture.create(backend, Fixture.ALBUM, Fixture.HOME, "target-", NOISE_PER_KIND);
    type = Fixture.copyOf(Fixture.ARTIST);
    tenancy = Fixture.copyOf(Fixture.HOME);
    int found = listAll();
    if (found != MATCHING) {
      throw new IllegalStateException("listed " + found + " resources, expected " + MATCHING);
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    backend.close();
  }

  /** Lists every Artist in default/default named target-*, page by page; returns how many. */
  @Benchmark
  public int listAll() {
    int found = 0;
    String token = "";
    do {
      Page page = backend.list(Consistency.EVENTUAL, type, tenancy, "target-", pageSize, token);
      found += page.resources().size();
      token = page.nextPageToken();
    } while (!token.isEmpty());
    return found;
  }
}
