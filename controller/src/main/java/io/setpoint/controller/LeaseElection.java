package io.setpoint.controller;

import com.google.protobuf.Any;
import io.grpc.Status.Code;
import io.setpoint.api.Ids;
import io.setpoint.api.Leases;
import io.setpoint.api.Types;
import io.setpoint.api.core.v1.Lease;
import io.setpoint.api.v1.Fence;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.client.SetpointClient;
import io.setpoint.client.SetpointException;
import io.setpoint.controller.time.Ticker;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Leader election among controller managers in separate processes, on a {@code core.v1.Lease}
 * stored in the server: the {@link Leadership} of a {@link Manager} built with {@link
 * Manager.Builder#leaderElection}. One manager at a time holds the lease and runs the SINGLETON
 * controllers; the others keep their caches primed and wait.
 *
 * <p>The holder renews the lease every {@linkplain Builder#retryPeriod retry period} with a
 * compare-and-swap. A candidate takes the lease over when its version has not changed for a
 * {@linkplain Builder#leaseDuration lease duration} of the candidate's own ticker (so no two
 * clocks are compared), when its holder released it, or when there is none; every takeover raises
 * the lease's epoch by one. A holder that cannot renew within the {@linkplain Builder#renewDeadline
 * renew deadline}, shorter than the lease, steps down: its manager stops the controllers before
 * another can take over.
 *
 * <p>Timing alone cannot stop a process that was paused (a GC pause, SIGSTOP, a VM migration) and
 * resumes believing it still leads. So the controllers of the holder write through a client {@link
 * SetpointClient#fenced fenced} with the lease's name, holder and epoch, and the server refuses,
 * atomically with the write, every write whose fence no longer matches the stored lease.
 *
 * <pre>{@code
 * Manager manager = Manager.builder()
 *     .client(SetpointClient.connect("localhost:8500"))
 *     .leaderElection(LeaseElection.named("billing-controllers").leaseDuration(Duration.ofSeconds(15)))
 *     .build();
 * }</pre>
 */
public final class LeaseElection implements Leadership {
  private static final Logger log = LoggerFactory.getLogger(LeaseElection.class);
  /** The {@code group} of every election lease, which sets them apart from a LeaseLocker's. */
  static final String GROUP = "election";
  private static final Pattern NAME = Pattern.compile("^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$");
  private static final Pattern HOLDER = Pattern.compile("^[A-Za-z0-9]([-A-Za-z0-9_.:@]{0,251}[A-Za-z0-9])?$");

  private final String name;
  private final String holder;
  private final Duration leaseDuration;
  private final Duration renewDeadline;
  private final Duration retryPeriod;
  private final SetpointClient client;
  private final Ticker ticker;
  private final Clock clock;
  private final LeaseCalls calls;
  private final Faults faults;
  private final ID id;
  private final List<Runnable> listeners = new CopyOnWriteArrayList<>();
  /** The fence of the term this process holds; null while it does not lead. */
  private volatile Fence fence;
  private volatile boolean closed;
  private Thread thread;

  // Read and written by the election thread only.
  /** The lease as this process last wrote it while holding it. */
  private Resource held;
  /** When the renew that last succeeded was sent, on the ticker. */
  private long renewedAt;
  /** The version of the lease last seen held by another, and since when it has not changed. */
  private String observedVersion = "";
  private long observedSince;

  private LeaseElection(Builder b, SetpointClient client, Ticker ticker, Clock clock, Faults faults) {
    this.faults = faults;
    this.name = b.name;
    this.holder = b.holder;
    this.leaseDuration = b.leaseDuration;
    this.renewDeadline = b.renewDeadline;
    this.retryPeriod = b.retryPeriod;
    this.client = client;
    this.ticker = ticker;
    this.clock = clock;
    this.calls = new LeaseCalls(ticker);
    this.id = Ids.of(Types.LEASE, name);
  }

  /** Starts configuring an election on the lease {@code name} (a DNS label). */
  public static Builder named(String name) {
    return new Builder(name);
  }

  /** The name of the lease this election runs on. */
  public String name() {
    return name;
  }

  /** This process's identity in the election, the lease's holder while it leads. */
  public String holder() {
    return holder;
  }

  @Override
  public boolean isLeader() {
    return fence != null;
  }

  /**
   * The fence of the current term while this process leads: a client {@link SetpointClient#fenced
   * fenced} with it writes only while this process still holds the lease at this term's epoch.
   */
  public Optional<Fence> fence() {
    return Optional.ofNullable(fence);
  }

  @Override
  public void onChange(Runnable listener) {
    listeners.add(Objects.requireNonNull(listener, "listener"));
  }

  /**
   * How long a holder that steps down may take to stop its controllers and still be done before a
   * candidate can take over: the lease duration less the renew deadline.
   */
  Duration stepDownBudget() {
    return leaseDuration.minus(renewDeadline);
  }

  /** Starts campaigning, in a virtual thread of its own. */
  synchronized void start() {
    if (thread == null && !closed) {
      thread = Thread.ofVirtual().name("setpoint-election-" + name).start(this::campaign);
    }
  }

  /**
   * Stops campaigning and, if this process leads, releases the lease so that a standby takes over
   * at once rather than after a lease duration. The manager calls it after stopping the
   * controllers.
   */
  void close() {
    Thread campaigning;
    synchronized (this) {
      closed = true;
      campaigning = thread;
    }
    if (campaigning != null) {
      campaigning.interrupt();
      try {
        campaigning.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    if (fence != null && held != null) {
      fence = null;
      try {
        Lease lease = Leases.of(held);
        calls.call(client.async().write(held.toBuilder()
            .setData(Any.pack(lease.toBuilder().setExpiresAt(lease.getRenewedAt()).build()))
            .build()), ticker.read() + renewDeadline.toNanos());
        log.info("election {}: {} released the lease", name, holder);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } catch (Throwable e) {
        // Others take over once the lease has gone unrenewed for a lease duration.
        log.warn("election {}: could not release the lease: {}", name, e.getMessage());
      }
    }
  }

  private void campaign() {
    while (!closed) {
      try {
        if (fence == null) {
          tryAcquire();
        } else {
          renew();
        }
      } catch (InterruptedException e) {
        return;
      } catch (Throwable e) {
        faults.caught(name, "election", fence == null ? "acquiring the lease" : "renewing the lease", e);
      }
      if (fence != null && ticker.read() - renewedAt >= renewDeadline.toNanos()) {
        stepDown("the lease was not renewed within the renew deadline of " + renewDeadline);
      }
      try {
        ticker.sleep(retryPeriod);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  private void tryAcquire() throws InterruptedException {
    long now = ticker.read();
    Optional<Resource> current = calls.find(client, id, now + leaseDuration.toNanos());
    if (current.isEmpty()) {
      Resource created;
      try {
        created = calls.call(client.async().create(Resource.newBuilder().setId(id)
            .setData(Any.pack(term(Lease.newBuilder().setGroup(GROUP), 1))).build()), now + leaseDuration.toNanos());
      } catch (SetpointException e) {
        if (e.isAlreadyExists()) {
          return; // another candidate created it first: it leads, and this one watches the lease from now on
        }
        throw e;
      }
      lead(created, now);
      return;
    }
    Resource stored = current.get();
    Lease lease = Leases.of(stored);
    if (!stored.getVersion().equals(observedVersion)) {
      observedVersion = stored.getVersion();
      observedSince = now;
    }
    boolean released = Leases.isReleased(lease);
    boolean expired = now - observedSince >= leaseDuration.toNanos();
    // Its own lease, from a term it stepped down from: no one took it since, so take it back now.
    boolean own = lease.getHolder().equals(holder);
    if (!released && !expired && !own) {
      return;
    }
    Resource taken = calls.call(client.async().write(stored.toBuilder()
        .setData(Any.pack(term(lease.toBuilder(), lease.getEpoch() + 1))).build()), now + leaseDuration.toNanos());
    lead(taken, now);
  }

  private void renew() throws InterruptedException {
    long sent = ticker.read();
    Lease lease = Leases.of(held);
    Resource renewed;
    try {
      renewed = calls.call(client.async().write(held.toBuilder()
          .setData(Any.pack(term(lease.toBuilder(), lease.getEpoch()))).build()), renewedAt + renewDeadline.toNanos());
    } catch (SetpointException e) {
      if (e.code() == Code.ABORTED || e.code() == Code.NOT_FOUND || e.code() == Code.FAILED_PRECONDITION) {
        stepDown("the lease was taken over or removed: " + e.description());
        return;
      }
      throw e;
    }
    held = renewed;
    renewedAt = sent;
  }

  /** The lease held by this process from now until a lease duration from now. */
  private Lease term(Lease.Builder lease, long epoch) {
    Instant now = clock.instant();
    return lease.setGroup(GROUP).setKey("").setHolder(holder).setEpoch(epoch)
        .setRenewedAt(Leases.timestamp(now)).setExpiresAt(Leases.timestamp(now.plus(leaseDuration))).build();
  }

  private void lead(Resource lease, long sentAt) {
    held = lease;
    renewedAt = sentAt;
    long epoch = Leases.of(lease).getEpoch();
    fence = Fence.newBuilder().setLease(name).setHolder(holder).setEpoch(epoch).build();
    log.info("election {}: {} leads (epoch {})", name, holder, epoch);
    listeners.forEach(Runnable::run);
  }

  private void stepDown(String why) {
    fence = null;
    held = null;
    observedVersion = "";
    log.warn("election {}: {} steps down: {}", name, holder, why);
    listeners.forEach(Runnable::run);
  }

  /**
   * Configures a {@link LeaseElection}; hand it to {@link Manager.Builder#leaderElection}, which
   * builds the election with the manager's client, ticker and clock.
   */
  public static final class Builder {
    private final String name;
    private String holder = LeaseCalls.processName(200);
    private Duration leaseDuration = Duration.ofSeconds(15);
    private Duration renewDeadline = Duration.ofSeconds(10);
    private Duration retryPeriod = Duration.ofSeconds(2);

    private Builder(String name) {
      if (!NAME.matcher(Objects.requireNonNull(name, "name")).matches()) {
        throw new IllegalArgumentException("election name " + name + " must be a DNS label of at most 63 characters");
      }
      this.name = name;
    }

    /**
     * This process's identity (default: host name, process id and a random suffix). Two processes
     * must never share one.
     */
    public Builder holder(String holder) {
      if (!HOLDER.matcher(Objects.requireNonNull(holder, "holder")).matches()) {
        throw new IllegalArgumentException(
            "holder " + holder + " must be 1 to 253 of [-A-Za-z0-9_.:@], starting and ending with a letter or digit");
      }
      this.holder = holder;
      return this;
    }

    /** How long a lease goes unrenewed before a standby takes it over (default 15 s). */
    public Builder leaseDuration(Duration leaseDuration) {
      this.leaseDuration = LeaseCalls.positive("leaseDuration", leaseDuration);
      return this;
    }

    /**
     * How long the holder keeps leading without a successful renew (default 10 s); shorter than
     * the lease duration, and the difference bounds how long stopping the controllers may take.
     */
    public Builder renewDeadline(Duration renewDeadline) {
      this.renewDeadline = LeaseCalls.positive("renewDeadline", renewDeadline);
      return this;
    }

    /** How often the holder renews and a standby looks at the lease (default 2 s). */
    public Builder retryPeriod(Duration retryPeriod) {
      this.retryPeriod = LeaseCalls.positive("retryPeriod", retryPeriod);
      return this;
    }

    LeaseElection build(SetpointClient client, Ticker ticker, Clock clock, Faults faults) {
      check();
      return new LeaseElection(this, client, ticker, clock, faults);
    }

    /** Checks that the timings nest: retry period, then renew deadline, then lease duration. */
    void check() {
      LeaseCalls.checkTimings(leaseDuration, renewDeadline, retryPeriod);
    }
  }
}
