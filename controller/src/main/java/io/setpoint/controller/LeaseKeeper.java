package io.setpoint.controller;

import io.grpc.Status.Code;
import io.setpoint.api.Leases;
import io.setpoint.api.core.v1.Lease;
import io.setpoint.api.v1.Fence;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.client.SetpointException;
import io.setpoint.controller.time.Ticker;
import java.time.Clock;
import java.time.Instant;
import java.util.Optional;
import java.util.function.BooleanSupplier;

/**
 * Keeps one lease on the ticker: takes it while it is not held, renews it with a compare-and-swap
 * every retry period, and lets it go when a renew is refused or the renew deadline passes without
 * one, so the holder stops before anyone else can take the lease. What the lease says and what
 * holding it means are the subclass's: a {@link LeaseElection}'s term, a {@link Sharding} member's
 * heartbeat. A {@linkplain io.setpoint.controller.loop.Locker#lease lease locker}'s heartbeat is
 * another kind of lease (written blind, judged by the wall clock, no renew deadline), so it keeps
 * its own.
 */
abstract class LeaseKeeper {
  /**
   * Whose lease it is: its id, and the group, key and holder every write of it carries.
   *
   * @param id the lease resource
   * @param group the lease's {@code group}, which tells elections and shard groups apart
   * @param key the lease's {@code key}
   * @param holder this process's name in the lease, and in its fence
   */
  record Claim(ID id, String group, String key, String holder) {}

  final LeaseCalls calls;
  final Ticker ticker;
  final LeaseTimings timings;
  final Claim claim;
  private final Clock clock;
  /** What the lease is to its holder, for the reasons it is let go: "lease", "heartbeat". */
  private final String noun;
  /** How a refused renew came about, besides the lease being removed: "taken over", "evicted". */
  private final String refusal;

  /** The lease as this process last wrote it while holding it; null while it does not. */
  private volatile Resource held;
  /** When the renew that last succeeded was sent, on the ticker; the keeping thread's. */
  private long renewedAt;

  LeaseKeeper(LeaseCalls calls, Ticker ticker, Clock clock, LeaseTimings timings, Claim claim, String noun,
      String refusal) {
    this.calls = calls;
    this.ticker = ticker;
    this.clock = clock;
    this.timings = timings;
    this.claim = claim;
    this.noun = noun;
    this.refusal = refusal;
  }

  /**
   * Takes the lease if this process may now, {@code now} on the ticker: the lease as written, or
   * empty when it may not (another holds it, or won the race to take it).
   */
  abstract Optional<Resource> acquire(long now) throws InterruptedException;

  /** This process holds the lease from now on, under {@code fence}. */
  abstract void acquired(Fence fence) throws InterruptedException;

  /** The lease a renew writes over {@code held}, the one this process holds. */
  abstract Lease renewal(Lease held);

  /** A renew wrote {@code lease}. */
  void renewed(Lease lease) {}

  /** This process no longer holds the lease, for the reason {@code why}. */
  abstract void lost(String why) throws InterruptedException;

  /**
   * {@code doing} ("taking the lease", "renewing the heartbeat", "letting the lease go") threw
   * {@code e}; the keeping goes on.
   */
  abstract void failed(Throwable e, String doing);

  /** Waits a retry period before the next take or renew. */
  void pause() throws InterruptedException {
    ticker.sleep(timings.retryPeriod());
  }

  /** The lease as last written while held, or null while this process does not hold it. */
  final Resource held() {
    return held;
  }

  /** Takes or renews the lease, then waits, until {@code closed}; returns when interrupted. */
  final void run(BooleanSupplier closed) {
    while (!closed.getAsBoolean()) {
      try {
        if (held == null) {
          take();
        } else {
          renew();
        }
      } catch (InterruptedException e) {
        return;
      } catch (Throwable e) {
        failed(e, (held != null ? "renewing the " : "taking the ") + noun);
      }
      try {
        if (held != null && ticker.read() - renewedAt >= timings.renewDeadline().toNanos()) {
          lose("the " + noun + " was not renewed within the renew deadline of " + timings.renewDeadline());
        }
      } catch (InterruptedException e) {
        return;
      } catch (Throwable e) {
        // What letting go tells (the manager placing its controllers) may throw; were this thread to
        // end here, the process would never take the lease again.
        failed(e, "letting the " + noun + " go");
      }
      try {
        pause();
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  /**
   * {@code lease} stamped as this process's, at {@code epoch}, renewed now on the clock and valid
   * for a lease duration.
   */
  final Lease stamp(Lease.Builder lease, long epoch) {
    Instant now = clock.instant();
    return lease.setGroup(claim.group()).setKey(claim.key()).setHolder(claim.holder()).setEpoch(epoch)
        .setRenewedAt(Leases.timestamp(now)).setExpiresAt(Leases.timestamp(now.plus(timings.leaseDuration())))
        .build();
  }

  private void take() throws InterruptedException {
    long now = ticker.read();
    Optional<Resource> taken = acquire(now);
    if (taken.isEmpty()) {
      return;
    }
    held = taken.get();
    renewedAt = now;
    acquired(Fence.newBuilder().setLease(claim.id().getName()).setHolder(claim.holder())
        .setEpoch(Leases.of(taken.get()).getEpoch()).build());
  }

  private void renew() throws InterruptedException {
    long sent = ticker.read();
    Lease lease = renewal(Leases.of(held));
    Resource written;
    try {
      written = calls.write(held, lease, renewedAt + timings.renewDeadline().toNanos());
    } catch (SetpointException e) {
      if (e.code() == Code.ABORTED || e.code() == Code.NOT_FOUND || e.code() == Code.FAILED_PRECONDITION) {
        lose("the " + noun + " was " + refusal + " or removed: " + e.description());
        return;
      }
      throw e;
    }
    held = written;
    renewedAt = sent;
    renewed(lease);
  }

  private void lose(String why) throws InterruptedException {
    held = null;
    lost(why);
  }
}
