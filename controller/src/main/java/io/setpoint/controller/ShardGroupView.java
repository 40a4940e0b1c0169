package io.setpoint.controller;

import io.setpoint.api.Leases;
import io.setpoint.api.Types;
import io.setpoint.api.core.v1.Lease;
import io.setpoint.api.v1.ListRequest;
import io.setpoint.api.v1.Resource;
import io.setpoint.client.SetpointException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What one member sees of the other members of its shard group: whose heartbeats are live, and
 * which of those have fallen quiet. Reading it evicts a member silent for a lease duration and
 * deletes released heartbeats long unchanged. Used by one thread, the member's hand-over.
 */
final class ShardGroupView {
  private static final Logger log = LoggerFactory.getLogger(Sharding.class);
  /** Released heartbeats unchanged for this many lease durations are deleted. */
  private static final int FORGET_AFTER_LEASES = 5;

  /** The other members with a live heartbeat, by member, and those of them that have fallen quiet. */
  record Group(Map<String, Lease> live, Set<String> quiet) {}

  /** A heartbeat's version last seen, since when it has not changed, and whether that was told. */
  private record Observed(String version, long since, boolean quiet) {}

  private final LeaseCalls calls;
  private final LeaseTimings timings;
  private final String name;
  private final String member;
  /** The name of this member's own heartbeat, which the view leaves out. */
  private final String own;
  private final Map<String, Observed> observed = new HashMap<>();

  ShardGroupView(LeaseCalls calls, LeaseTimings timings, String name, String member) {
    this.calls = calls;
    this.timings = timings;
    this.name = name;
    this.member = member;
    this.own = name + "-" + member;
  }

  /**
   * The other members' heartbeats that are live at {@code now} on the ticker, and which of them
   * have not changed for half a lease duration (a healthy member renews every retry period).
   */
  Group read(long now) throws InterruptedException {
    long leaseDuration = timings.leaseDuration().toNanos();
    List<Resource> heartbeats = calls.list(ListRequest.newBuilder()
        .setType(Types.LEASE).setNamePrefix(name + "-").setConsistent(true).build(), deadline(now));
    Map<String, Lease> live = new HashMap<>();
    Set<String> quiet = new HashSet<>();
    Map<String, Observed> seen = new HashMap<>();
    for (Resource r : heartbeats) {
      Lease lease = Leases.of(r);
      if (!lease.getGroup().equals(Sharding.GROUP) || !lease.getKey().equals(name) || r.getId().getName().equals(own)) {
        continue;
      }
      Observed o = observed.get(r.getId().getName());
      if (o == null || !o.version().equals(r.getVersion())) {
        o = new Observed(r.getVersion(), now, false);
      }
      seen.put(r.getId().getName(), o);
      long unchanged = now - o.since();
      if (Leases.isReleased(lease)) {
        if (unchanged >= leaseDuration * FORGET_AFTER_LEASES) {
          forget(r, now);
        }
      } else if (unchanged >= leaseDuration) {
        evict(r, lease, now);
      } else {
        live.put(lease.getHolder(), lease);
        if (unchanged >= leaseDuration / 2) {
          quiet.add(lease.getHolder());
          if (!o.quiet()) {
            log.info("shard group {}: {} has not heard from {} for {} ms; caching the slots it would gain",
                name, member, lease.getHolder(), unchanged / 1_000_000);
            o = new Observed(o.version(), o.since(), true);
            seen.put(r.getId().getName(), o);
          }
        }
      }
    }
    observed.clear();
    observed.putAll(seen);
    return new Group(live, quiet);
  }

  /** Marks a silent member's heartbeat released: it is out, and its fenced writes are refused. */
  private void evict(Resource heartbeat, Lease lease, long now) throws InterruptedException {
    try {
      calls.write(heartbeat, LeaseCalls.released(lease), deadline(now));
      log.warn("shard group {}: {} evicted {}, silent for {}", name, member, lease.getHolder(), timings.leaseDuration());
    } catch (SetpointException e) {
      if (!e.isConflict() && !e.isNotFound()) {
        throw e;
      }
      // It renewed meanwhile, or another member evicted it first: the next step reads it afresh.
    }
  }

  private void forget(Resource heartbeat, long now) throws InterruptedException {
    try {
      calls.delete(heartbeat, deadline(now));
    } catch (SetpointException e) {
      if (!e.isConflict() && !e.isNotFound()) {
        throw e;
      }
    }
  }

  private long deadline(long now) {
    return now + timings.renewDeadline().toNanos();
  }
}
