package io.setpoint.controller;

import io.setpoint.api.Ids;
import io.setpoint.api.Leases;
import io.setpoint.api.Types;
import io.setpoint.api.core.v1.Lease;
import io.setpoint.api.v1.Fence;
import io.setpoint.api.v1.Resource;
import io.setpoint.client.SetpointException;
import io.setpoint.controller.time.Ticker;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Semaphore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A shard member's heartbeat lease ({@code GROUP-MEMBER}): joins the group with it, renews it
 * every retry period publishing the member list this member acts on, and leaves the group when a
 * renew is refused or late.
 */
final class ShardHeartbeat extends LeaseKeeper {
  private static final Logger log = LoggerFactory.getLogger(Sharding.class);

  private final String name;
  private final String member;
  private final Faults faults;
  private final ShardMembership membership;
  /** Released to renew at once, publishing a newly adopted view. */
  private final Semaphore renewNow = new Semaphore(0);

  ShardHeartbeat(LeaseCalls calls, Ticker ticker, Clock clock, LeaseTimings timings, String name, String member,
      Faults faults, ShardMembership membership) {
    super(calls, ticker, clock, timings, new Claim(Ids.of(Types.LEASE, name + "-" + member), Sharding.GROUP, name, member),
        "heartbeat", "evicted");
    this.name = name;
    this.member = member;
    this.faults = faults;
    this.membership = membership;
  }

  /** Renews at once rather than at the end of the retry period, publishing the view adopted now. */
  void renewNow() {
    renewNow.release();
  }

  /**
   * Leaves the group for good, once the heartbeat's thread has stopped: closes every slot and
   * deletes the heartbeat, so the others take the slots over at once.
   */
  void leave() throws InterruptedException {
    Resource held = held();
    if (membership.close() != null && held != null) {
      calls.delete(held, ticker.read() + timings.renewDeadline().toNanos());
      log.info("shard group {}: {} left", name, member);
    }
  }

  @Override
  Optional<Resource> acquire(long now) throws InterruptedException {
    long deadline = now + timings.renewDeadline().toNanos();
    Optional<Resource> current = calls.find(claim.id(), deadline);
    try {
      if (current.isEmpty()) {
        return Optional.of(calls.create(claim.id(), heartbeat(Lease.newBuilder(), 1, List.of()), deadline));
      }
      // Its own name: a former incarnation of this member, which the raised epoch fences.
      Lease lease = Leases.of(current.get());
      return Optional.of(calls.write(current.get(), heartbeat(lease.toBuilder(), lease.getEpoch() + 1, List.of()),
          deadline));
    } catch (SetpointException e) {
      if (e.isAlreadyExists() || e.isConflict()) {
        return Optional.empty();
      }
      throw e;
    }
  }

  @Override
  void acquired(Fence fence) {
    membership.joined(fence);
  }

  /** The heartbeat renewed with the view adopted now, which it then publishes. */
  @Override
  Lease renewal(Lease held) {
    return heartbeat(held.toBuilder(), held.getEpoch(), membership.adopted());
  }

  @Override
  void renewed(Lease lease) {
    membership.published(List.copyOf(lease.getViewList()));
  }

  @Override
  void lost(String why) throws InterruptedException {
    membership.leave(why);
  }

  @Override
  void failed(Throwable e, String doing) {
    faults.caught(name, "shard heartbeat", "member " + member + ", " + doing, e);
  }

  @Override
  void pause() throws InterruptedException {
    calls.sleepUnless(renewNow, timings.retryPeriod());
  }

  private Lease heartbeat(Lease.Builder lease, long epoch, List<String> view) {
    return stamp(lease.clearView().addAllView(view), epoch);
  }
}
