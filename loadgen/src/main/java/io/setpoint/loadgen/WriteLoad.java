package io.setpoint.loadgen;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * The closed-loop write generator. Each of {@code clients} platform threads owns
 * {@code keysPerClient} keys and writes them in turn, one write at a time: it sends the next write
 * as soon as the previous one is answered. No two clients write the same key, so a CAS only
 * conflicts if something else writes the key; unless the keys are {@linkplain Options#sharedKeys
 * shared}, when every client writes the same ones.
 *
 * <p>{@link #prepare} writes each key once (blind, in parallel, not timed), so the measured writes
 * update existing keys and each client knows every key's version. Then each {@link #run} of an
 * operation has two phases over the same keys:
 * <ol>
 *   <li>warm-up: the operation runs for {@code warmup} but nothing is recorded;
 *   <li>measurement: for {@code duration}, every write started in the window is counted: its
 *       latency (call to answer) when it succeeds, as an error when it fails. A CAS conflict is an
 *       error; after one (or any failed CAS) the client re-reads the key's version, untimed in the
 *       latency but inside the window.
 * </ol>
 * Runs on one instance are sequential; the instance remembers each key's last version between them.
 */
public final class WriteLoad {
  private final Target target;
  private final Options options;
  private final List<Client> clients;

  private WriteLoad(Target target, Options options, List<Client> clients) {
    this.target = target;
    this.options = options;
    this.clients = clients;
  }

  /**
   * How to load a target.
   *
   * @param clients closed-loop clients (threads), spread round-robin over the endpoints
   * @param keysPerClient keys each client owns and cycles through
   * @param sharedKeys whether every client cycles through the same {@code keysPerClient} keys
   *     instead, each from its own starting key, so that writers of one key race each other (a
   *     compare-and-swap that loses counts as failed)
   */
  public record Options(int clients, int keysPerClient, boolean sharedKeys, Duration warmup, Duration duration) {
    /** Keys of each client's own. */
    public Options(int clients, int keysPerClient, Duration warmup, Duration duration) {
      this(clients, keysPerClient, false, warmup, duration);
    }

    public Options {
      if (clients <= 0) {
        throw new IllegalArgumentException("clients must be positive, was " + clients);
      }
      if (keysPerClient <= 0) {
        throw new IllegalArgumentException("keysPerClient must be positive, was " + keysPerClient);
      }
      if (warmup.isNegative()) {
        throw new IllegalArgumentException("warmup must not be negative, was " + warmup);
      }
      if (duration.isNegative() || duration.isZero()) {
        throw new IllegalArgumentException("duration must be positive, was " + duration);
      }
    }
  }

  /** Prepares, then runs {@code op} once. */
  public static Result run(Target target, Op op, Options options) throws InterruptedException {
    return prepare(target, options).run(op);
  }

  /** Writes every client's keys once, each client on its own thread, and returns the ready load. */
  public static WriteLoad prepare(Target target, Options options) throws InterruptedException {
    List<Client> clients = new ArrayList<>();
    for (int c = 0; c < options.clients(); c++) {
      clients.add(new Client(target.writer(c), c, options.keysPerClient(), options.sharedKeys()));
    }
    AtomicReference<Throwable> failure = new AtomicReference<>();
    List<Thread> threads = new ArrayList<>();
    try {
      for (Client client : clients) {
        threads.add(Thread.ofPlatform().daemon().name("loadgen-prepare-" + client.index).start(() -> {
          try {
            client.prepare();
          } catch (RuntimeException e) {
            failure.compareAndSet(null, e);
          }
        }));
      }
      for (Thread thread : threads) {
        thread.join();
      }
    } finally {
      stop(threads);
    }
    if (failure.get() != null) {
      throw new IllegalStateException(
          target.system() + ": writing the initial keys failed: " + describe(failure.get()), failure.get());
    }
    return new WriteLoad(target, options, clients);
  }

  /** Runs {@code op} for the warm-up and the measured window; returns what the window saw. */
  public Result run(Op op) throws InterruptedException {
    return run(op, () -> CpuTime.UNKNOWN);
  }

  /**
   * Like {@link #run(Op)}, and also reports the servers' CPU time over the measured window: {@code
   * serverCpu} (what they have used so far) is read when the window opens and when it closes.
   */
  public Result run(Op op, Supplier<CpuTime> serverCpu) throws InterruptedException {
    return run(op, options.warmup(), options.duration(), serverCpu);
  }

  /**
   * Like {@link #run(Op, Supplier)}, with this warm-up and measured window instead of the
   * options': a zero warm-up measures from the first write, as a user's first minute sees it.
   */
  public Result run(Op op, Duration warmup, Duration duration, Supplier<CpuTime> serverCpu)
      throws InterruptedException {
    long now = System.nanoTime();
    long measureFrom = now + warmup.toNanos();
    long end = measureFrom + duration.toNanos();
    List<Stats> stats = new ArrayList<>();
    List<Thread> threads = new ArrayList<>();
    CpuTime cpuAtStart;
    CpuTime cpuAtEnd;
    try {
      for (Client client : clients) {
        Stats s = new Stats();
        stats.add(s);
        threads.add(Thread.ofPlatform().daemon().name("loadgen-" + op.label() + "-" + client.index)
            .start(() -> client.run(op, measureFrom, end, s)));
      }
      sleepUntil(measureFrom);
      cpuAtStart = serverCpu.get();
      sleepUntil(end);
      cpuAtEnd = serverCpu.get();
      for (Thread thread : threads) {
        thread.join();
      }
    } finally {
      stop(threads);
    }
    long[] sorted = Latencies.sortedUnion(stats.stream().map(s -> s.latencies).toList());
    long errors = 0;
    long conflicts = 0;
    String firstError = "";
    for (Stats s : stats) {
      errors += s.errors;
      conflicts += s.conflicts;
      if (firstError.isEmpty() && s.firstError != null) {
        firstError = s.firstError;
      }
    }
    return new Result(target.system(), target.endpoints(), op, clients.size(),
        duration.toNanos() / 1e9, sorted.length, errors, conflicts, firstError,
        Latencies.percentile(sorted, 50), Latencies.percentile(sorted, 90), Latencies.percentile(sorted, 99),
        Latencies.percentile(sorted, 99.9), Latencies.percentile(sorted, 100),
        cpuAtEnd.since(cpuAtStart));
  }

  /** The measuring thread's own pauses; the clients never sleep. */
  private static void sleepUntil(long nanoTime) throws InterruptedException {
    for (long left = nanoTime - System.nanoTime(); left > 0; left = nanoTime - System.nanoTime()) {
      TimeUnit.NANOSECONDS.sleep(left);
    }
  }

  /** Interrupts (cancelling their calls) and waits for threads still running: after a failure or an interrupt. */
  private static void stop(List<Thread> threads) throws InterruptedException {
    for (Thread thread : threads) {
      thread.interrupt();
    }
    for (Thread thread : threads) {
      thread.join();
    }
  }

  /** Failures that waiting does not cure: a missing token or type, a bad request. */
  private static final Set<Status.Code> PERMANENT = EnumSet.of(
      Status.Code.UNAUTHENTICATED, Status.Code.PERMISSION_DENIED, Status.Code.INVALID_ARGUMENT,
      Status.Code.UNIMPLEMENTED, Status.Code.NOT_FOUND, Status.Code.FAILED_PRECONDITION);

  /**
   * Waits until a blind write through every endpoint of {@code target} succeeds (a cluster may
   * accept connections before it has elected a leader); fails at once on a failure that waiting
   * does not cure, such as a missing ACL token.
   */
  public static void awaitWritable(Target target, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    for (int e = 0; e < target.endpoints(); e++) {
      Target.Writer writer = target.writer(e);
      for (;;) {
        try {
          writer.put("ready-" + e, 0);
          break;
        } catch (StatusRuntimeException failure) {
          if (PERMANENT.contains(failure.getStatus().getCode()) || System.nanoTime() > deadline) {
            throw new IllegalStateException(String.format(Locale.ROOT,
                "%s endpoint %d does not accept writes after %s: %s",
                target.system(), e, timeout, describe(failure)), failure);
          }
          Thread.sleep(100);
        }
      }
    }
  }

  /**
   * Waits until the member at {@code endpoint} says it leads, asking every 50 ms; fails with
   * {@link IllegalStateException} after {@code timeout}.
   */
  public static void awaitLeader(Target target, int endpoint, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (target.leaderEndpoint().orElse(-1) != endpoint) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(String.format(Locale.ROOT,
            "%s member %d does not lead %s after it was handed leadership", target.system(), endpoint + 1, timeout));
      }
      Thread.sleep(50);
    }
  }

  static String describe(Throwable failure) {
    if (failure instanceof StatusRuntimeException e) {
      String description = e.getStatus().getDescription();
      return e.getStatus().getCode() + (description == null ? "" : ": " + description);
    }
    return failure.toString();
  }

  /** What one client measured in one run. */
  private static final class Stats {
    private final Latencies latencies = new Latencies(1 << 14);
    private long errors;
    private long conflicts;
    private String firstError;

    void failed(String what) {
      errors++;
      if (firstError == null) {
        firstError = what;
      }
    }
  }

  /** One closed-loop client: its keys and their last known versions. */
  private static final class Client {
    private final Target.Writer writer;
    private final int index;
    private final String[] keys;
    private final long[] versions;
    private long seq;
    private int next;

    Client(Target.Writer writer, int index, int keyCount, boolean shared) {
      this.writer = writer;
      this.index = index;
      this.keys = new String[keyCount];
      this.versions = new long[keyCount];
      for (int k = 0; k < keyCount; k++) {
        keys[k] = shared ? String.format(Locale.ROOT, "shared-k%04d", k) : String.format(Locale.ROOT, "c%03d-k%04d", index, k);
      }
      this.next = shared ? index % keyCount : 0;
    }

    void prepare() {
      for (int k = 0; k < keys.length; k++) {
        versions[k] = writer.put(keys[k], ++seq);
      }
    }

    void run(Op op, long measureFrom, long end, Stats stats) {
      int k = next;
      while (!Thread.currentThread().isInterrupted()) {
        long start = System.nanoTime();
        if (start - end >= 0) {
          break;
        }
        boolean measured = start - measureFrom >= 0;
        try {
          if (op == Op.PUT) {
            versions[k] = writer.put(keys[k], ++seq);
            if (measured) {
              stats.latencies.add(System.nanoTime() - start);
            }
          } else {
            long version = writer.cas(keys[k], versions[k], ++seq);
            if (version != Target.CONFLICT) {
              versions[k] = version;
              if (measured) {
                stats.latencies.add(System.nanoTime() - start);
              }
            } else {
              if (measured) {
                stats.conflicts++;
                stats.failed("CAS conflict on " + keys[k] + " at version " + versions[k]);
              }
              resync(k);
            }
          }
        } catch (RuntimeException e) {
          if (measured) {
            stats.failed(describe(e));
          }
          // The write may or may not have happened: learn the version it left.
          resync(k);
        }
        k = (k + 1) % keys.length;
      }
      next = k;
    }

    /** Learns the key's version after a conflict or a write whose outcome is unknown. */
    private void resync(int k) {
      try {
        versions[k] = writer.version(keys[k]);
      } catch (RuntimeException e) {
        // The next CAS conflicts and tries again.
      }
    }
  }
}
