package io.setpoint.controller;

import io.setpoint.api.v1.Fence;
import java.util.BitSet;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where one member of a shard group stands: the fence of its membership, the member list it acts
 * on and the one its heartbeat last published, and its open slots. Joining, leaving and moving
 * slots change them under one lock, so that no slot opens for a membership that ended.
 */
final class ShardMembership {
  private static final Logger log = LoggerFactory.getLogger(Sharding.class);

  private final String name;
  private final String member;
  private final SlotGate gate = new SlotGate();
  private final Object lock = new Object();
  private volatile Sharding.Listener listener;
  /** The fence of this membership; null while not a member. */
  private volatile Fence fence;
  /** The members whose split this member acts on and publishes, sorted. */
  private volatile List<String> adopted = List.of();
  /** The view the last successful renew published. */
  private volatile List<String> published = List.of();

  ShardMembership(String name, String member) {
    this.name = name;
    this.member = member;
  }

  SlotGate gate() {
    return gate;
  }

  /** The fence of this membership; null while not a member. */
  Fence fence() {
    return fence;
  }

  /** The members whose split this member acts on, sorted; empty while not a member. */
  List<String> adopted() {
    return adopted;
  }

  /** The member list the heartbeat last published. */
  List<String> published() {
    return published;
  }

  Sharding.Listener listener() {
    return listener;
  }

  void listener(Sharding.Listener listener) {
    this.listener = listener;
  }

  /** The heartbeat joined the group under {@code fence}: this member acts on no split yet. */
  void joined(Fence fence) {
    synchronized (lock) {
      adopted = List.of();
      published = List.of();
      this.fence = fence;
    }
    log.info("shard group {}: {} joined (epoch {})", name, member, fence.getEpoch());
    membershipChanged();
  }

  /** A renew published {@code view}. */
  void published(List<String> view) {
    published = view;
  }

  /** Stops every slot, then reports that this process is no longer a member. */
  void leave(String why) throws InterruptedException {
    synchronized (lock) {
      fence = null;
      log.warn("shard group {}: {} leaves: {}", name, member, why);
      gate.close(gate.opened());
      adopted = List.of();
      published = List.of();
    }
    membershipChanged();
  }

  /**
   * Closes every slot and ends the membership without telling the listener, as the manager
   * closes; the membership's fence, or null when it was none.
   */
  Fence close() throws InterruptedException {
    gate.close(gate.opened());
    Fence ended = fence;
    fence = null;
    return ended;
  }

  /**
   * Makes {@code target} the list to act on and publish, first closing the slots this member does
   * not own in it (waiting for their keys in flight). False, changing nothing, when {@code
   * membership} ended meanwhile.
   */
  boolean adopt(Fence membership, List<String> target) throws InterruptedException {
    synchronized (lock) {
      if (fence != membership) {
        return false;
      }
      BitSet lost = gate.opened();
      lost.andNot(ShardRing.owned(target, member));
      if (!lost.isEmpty()) {
        gate.close(lost);
        log.info("shard group {}: {} handed over {} slots (members {})", name, member, lost.cardinality(), target);
      }
      adopted = List.copyOf(target);
      return true;
    }
  }

  /**
   * Opens {@code gained}, unless {@code membership} ended or this member acts on another list than
   * {@code target} meanwhile; whether it did.
   */
  boolean open(Fence membership, List<String> target, BitSet gained) {
    synchronized (lock) {
      if (fence != membership || !adopted.equals(target)) {
        return false;
      }
      gate.open(gained);
      return true;
    }
  }

  private void membershipChanged() {
    Sharding.Listener l = listener;
    if (l != null) {
      l.membershipChanged();
    }
  }
}
