package io.setpoint.controller;

import io.setpoint.api.Ids;
import io.setpoint.api.Leases;
import io.setpoint.api.Types;
import io.setpoint.api.core.v1.Lease;
import io.setpoint.api.v1.Fence;
import io.setpoint.api.v1.Resource;
import io.setpoint.client.SetpointClient;
import io.setpoint.client.SetpointException;
import io.setpoint.controller.time.Ticker;
import java.time.Clock;
import java.time.Duration;
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
  /** The {@code group} of every election lease, which sets them apart from a lease locker's. */
  static final String GROUP = "election";
  private static final Pattern NAME = Pattern.compile("^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$");
  private static final Pattern HOLDER = Pattern.compile("^[A-Za-z0-9]([-A-Za-z0-9_.:@]{0,251}[A-Za-z0-9])?$");

  private final String name;
  private final String holder;
  private final LeaseTimings timings;
  private final Ticker ticker;
  private final LeaseCalls calls;
  private final Faults faults;
  private final Term term;
  private final List<Runnable> listeners = new CopyOnWriteArrayList<>();
  /** The fence of the term this process holds; null while it does not lead. */
  private volatile Fence fence;
  private volatile boolean closed;
  private Thread thread;

  private LeaseElection(Builder b, SetpointClient client, Ticker ticker, Clock clock, Faults faults) {
    this.faults = faults;
    this.name = b.name;
    this.holder = b.holder;
    this.timings = b.timings();
    this.ticker = ticker;
    this.calls = new LeaseCalls(client, ticker);
    this.term = new Term(calls, ticker, clock, timings);
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
    return timings.leaseDuration().minus(timings.renewDeadline());
  }

  /** Starts campaigning, in a virtual thread of its own. */
  synchronized void start() {
    if (thread == null && !closed) {
      thread = Thread.ofVirtual().name("setpoint-election-" + name).start(() -> term.run(() -> closed));
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
    Resource held = term.held();
    if (fence != null && held != null) {
      fence = null;
      try {
        calls.write(held, LeaseCalls.released(Leases.of(held)), ticker.read() + timings.renewDeadline().toNanos());
        log.info("election {}: {} released the lease", name, holder);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } catch (Throwable e) {
        // Others take over once the lease has gone unrenewed for a lease duration.
        log.warn("election {}: could not release the lease: {}", name, e.getMessage());
      }
    }
  }

  /**
   * Calls every {@linkplain #onChange listener}, each guarded: one that throws (the manager placing
   * its controllers, say) is a fault of the election, and costs neither the others their call nor
   * the election its thread, which would otherwise never campaign again.
   */
  private void tellListeners() {
    for (Runnable listener : listeners) {
      try {
        listener.run();
      } catch (Throwable e) {
        String as = holder + (fence != null ? " leads" : " steps down");
        faults.record(name, "election", "a leadership listener, as " + as, e, false);
      }
    }
  }

  /** The election's lease as this process campaigns for it, leads with it and steps down. */
  private final class Term extends LeaseKeeper {
    /** The version of the lease last seen held by another, and since when it has not changed. */
    private String observedVersion = "";
    private long observedSince;

    Term(LeaseCalls calls, Ticker ticker, Clock clock, LeaseTimings timings) {
      super(calls, ticker, clock, timings, new Claim(Ids.of(Types.LEASE, name), GROUP, "", holder), "lease",
          "taken over");
    }

    @Override
    Optional<Resource> acquire(long now) throws InterruptedException {
      long deadline = now + timings.leaseDuration().toNanos();
      Optional<Resource> current = calls.find(claim.id(), deadline);
      if (current.isEmpty()) {
        try {
          return Optional.of(calls.create(claim.id(), stamp(Lease.newBuilder(), 1), deadline));
        } catch (SetpointException e) {
          if (e.isAlreadyExists()) {
            return Optional.empty(); // another candidate created it first: it leads, and this one watches the lease from now on
          }
          throw e;
        }
      }
      Resource stored = current.get();
      Lease lease = Leases.of(stored);
      if (!stored.getVersion().equals(observedVersion)) {
        observedVersion = stored.getVersion();
        observedSince = now;
      }
      boolean released = Leases.isReleased(lease);
      boolean expired = now - observedSince >= timings.leaseDuration().toNanos();
      // Its own lease, from a term it stepped down from: no one took it since, so take it back now.
      boolean own = lease.getHolder().equals(holder);
      if (!released && !expired && !own) {
        return Optional.empty();
      }
      return Optional.of(calls.write(stored, stamp(lease.toBuilder(), lease.getEpoch() + 1), deadline));
    }

    @Override
    void acquired(Fence term) {
      fence = term;
      log.info("election {}: {} leads (epoch {})", name, holder, term.getEpoch());
      tellListeners();
    }

    @Override
    Lease renewal(Lease held) {
      return stamp(held.toBuilder(), held.getEpoch());
    }

    @Override
    void lost(String why) {
      fence = null;
      observedVersion = "";
      log.warn("election {}: {} steps down: {}", name, holder, why);
      tellListeners();
    }

    @Override
    void failed(Throwable e, String doing) {
      faults.caught(name, "election", doing, e);
    }
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
      this.leaseDuration = LeaseTimings.positive("leaseDuration", leaseDuration);
      return this;
    }

    /**
     * How long the holder keeps leading without a successful renew (default 10 s); shorter than
     * the lease duration, and the difference bounds how long stopping the controllers may take.
     */
    public Builder renewDeadline(Duration renewDeadline) {
      this.renewDeadline = LeaseTimings.positive("renewDeadline", renewDeadline);
      return this;
    }

    /** How often the holder renews and a standby looks at the lease (default 2 s). */
    public Builder retryPeriod(Duration retryPeriod) {
      this.retryPeriod = LeaseTimings.positive("retryPeriod", retryPeriod);
      return this;
    }

    LeaseElection build(SetpointClient client, Ticker ticker, Clock clock, Faults faults) {
      return new LeaseElection(this, client, ticker, clock, faults);
    }

    /** Checks that the timings nest: retry period, then renew deadline, then lease duration. */
    void check() {
      timings();
    }

    private LeaseTimings timings() {
      return new LeaseTimings(leaseDuration, renewDeadline, retryPeriod);
    }
  }
}
