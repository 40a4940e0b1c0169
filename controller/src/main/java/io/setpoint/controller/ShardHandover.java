package io.setpoint.controller;

import io.setpoint.api.core.v1.Lease;
import io.setpoint.api.v1.Fence;
import io.setpoint.api.v1.HashRange;
import io.setpoint.controller.time.Ticker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves a shard member's slots toward the split of the live members, a step at a time: on a change
 * it first closes the slots it loses and publishes the new member list, and it opens the slots it
 * gains only once every live member publishes the same list, so a key's old owner has finished
 * with it before its new owner starts. It runs in a thread of its own, apart from the heartbeat,
 * because a step may wait for reconciles to finish or caches to fill and must not delay a renew.
 */
final class ShardHandover {
  private static final Logger log = LoggerFactory.getLogger(Sharding.class);

  private final String name;
  private final String member;
  private final Ticker ticker;
  private final Duration retryPeriod;
  private final Faults faults;
  private final ShardMembership membership;
  private final ShardGroupView view;
  private final ShardHeartbeat heartbeat;

  ShardHandover(String name, String member, Ticker ticker, Duration retryPeriod, Faults faults,
      ShardMembership membership, ShardGroupView view, ShardHeartbeat heartbeat) {
    this.name = name;
    this.member = member;
    this.ticker = ticker;
    this.retryPeriod = retryPeriod;
    this.faults = faults;
    this.membership = membership;
    this.view = view;
    this.heartbeat = heartbeat;
  }

  /** Steps until {@code closed}; returns when interrupted. */
  void run(BooleanSupplier closed) {
    while (!closed.getAsBoolean()) {
      try {
        step();
      } catch (InterruptedException e) {
        return;
      } catch (Throwable e) {
        faults.caught(name, "shard slots", "member " + member, e);
      }
      try {
        // Four looks per renew period: a silent member is noticed, and a change settles, within
        // a quarter of it.
        ticker.sleep(retryPeriod.dividedBy(4));
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  /** Reads the group and moves one step toward its split. */
  private void step() throws InterruptedException {
    Fence fence = membership.fence();
    if (fence == null) {
      return;
    }
    ShardGroupView.Group group = view.read(ticker.read());
    Map<String, Lease> live = group.live();
    List<String> target = new ArrayList<>(live.keySet());
    target.add(member);
    target.sort(null);
    if (!target.equals(membership.adopted())) {
      if (!membership.adopt(fence, target)) {
        return;
      }
      heartbeat.renewNow();
      Sharding.Listener l = membership.listener();
      if (l != null) {
        // The caches let go of what this member handed over and fill what it will gain while the
        // others adopt the same list, so the gained slots can open as soon as they have.
        l.prepare(cached(target, group.quiet()));
      }
      return;
    }
    List<String> adopted = membership.adopted();
    Sharding.Listener l = membership.listener();
    if (l != null) {
      // Holds the slots of quiet members this member would gain, or lets them go once they speak.
      l.prefetch(cached(adopted, group.quiet()));
    }
    if (!membership.published().equals(adopted)) {
      return;
    }
    for (Lease other : live.values()) {
      if (!other.getViewList().equals(adopted)) {
        return;
      }
    }
    BitSet owned = ShardRing.owned(adopted, member);
    BitSet gained = (BitSet) owned.clone();
    gained.andNot(membership.gate().opened());
    if (gained.isEmpty()) {
      return;
    }
    if (l != null) {
      l.prepare(cached(adopted, group.quiet()));
    }
    if (membership.open(fence, target, gained)) {
      log.info("shard group {}: {} handles {} of {} slots (members {})", name, member, owned.cardinality(),
          ShardRing.SLOTS, adopted);
    }
  }

  /**
   * The ranges this member's caches hold for the split of {@code members}: the slots it owns, and
   * those it would gain if the {@code quiet} members were evicted. A killed member's slots then open
   * as soon as it is evicted, instead of a cache fill later.
   */
  private List<HashRange> cached(List<String> members, Set<String> quiet) {
    BitSet slots = ShardRing.owned(members, member);
    if (!quiet.isEmpty()) {
      List<String> remaining = new ArrayList<>(members);
      remaining.removeAll(quiet);
      slots.or(ShardRing.owned(remaining, member));
    }
    return ShardRing.ranges(slots);
  }
}
