package io.setpoint.server;

import com.github.f4b6a3.ulid.Ulid;
import io.setpoint.api.Ids;
import io.setpoint.api.core.v1.Tombstone;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.client.SetpointClient;
import io.setpoint.client.SetpointException;
import io.setpoint.controller.Controller;
import io.setpoint.controller.Result;
import io.setpoint.resource.CoreTypes;
import io.setpoint.resource.Hooks;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The controller that finishes cascading deletes: for each {@code core.v1.Tombstone} it deletes
 * every resource the deleted owner owned (each of which leaves its own tombstone when it owns
 * more, so the cascade recurses), then the tombstone. Because the tombstone is stored before the
 * owner is deleted, a crash anywhere in between is resumed when the controller starts again. While
 * an owned resource waits for its finalizers, or the owner for its delete, the tombstone is looked
 * at again with a backoff (10 ms doubling to 5 s), not in a busy loop. An owner still there 30 s
 * after its tombstone was written was not deleted after all, and the tombstone goes.
 */
final class Cascade {
  /** The controller's name. */
  public static final String NAME = "setpoint-cascade";
  private static final Duration FIRST_WAIT = Duration.ofMillis(10);
  private static final Duration LONGEST_WAIT = Duration.ofSeconds(5);
  /**
   * How long an owner that is still there may take to be deleted after its tombstone was written,
   * before the cascade takes its delete for failed and drops the tombstone. A replicated write can
   * wait out a leader election in between.
   */
  static final Duration OWNER_DELETE_GRACE = Duration.ofSeconds(30);

  private Cascade() {}

  /** The cascade controller; runs where the store's leader is. */
  public static Controller controller() {
    // How many times each tombstone found owned resources still there: the exponent of its backoff.
    Map<ID, Integer> waits = new ConcurrentHashMap<>();
    return Controller.forType(CoreTypes.TOMBSTONE)
        .named(NAME)
        .concurrency(2)
        .reconciler((ctx, tools, req) -> {
          SetpointClient client = tools.client();
          Optional<Resource> tombstone = read(client, req.id());
          if (tombstone.isEmpty()) {
            waits.remove(req.id());
            return Result.done();
          }
          ID owner = Hooks.decode(tombstone.get(), Tombstone.class).data().getOwner();
          Optional<Resource> stillThere = read(client, Ids.withoutUid(owner));
          if (stillThere.isPresent() && stillThere.get().getId().getUid().equals(owner.getUid())) {
            // The tombstone is written before the owner is deleted: the delete may still be on its way.
            if (age(tombstone.get(), tools.clock()).compareTo(OWNER_DELETE_GRACE) < 0) {
              return Result.requeueAfter(backoff(waits.merge(req.id(), 1, Integer::sum)));
            }
            // The owner's delete never happened (it failed after the tombstone was written).
            waits.remove(req.id());
            client.delete(tombstone.get().getId());
            return Result.done();
          }
          List<Resource> children = client.listByOwner(owner);
          for (Resource child : children) {
            client.delete(child.getId());
          }
          if (!client.listByOwner(owner).isEmpty()) {
            // Marked for deletion, but waiting for a finalizer (or for its own cascade).
            return Result.requeueAfter(backoff(waits.merge(req.id(), 1, Integer::sum)));
          }
          waits.remove(req.id());
          client.delete(tombstone.get().getId());
          tools.logger().debug("cascade of {} done: {} owned resources deleted", Ids.format(owner), children.size());
          return Result.done();
        });
  }

  /** How long the tombstone has been there: its uid is a ULID, made when it was written. */
  private static Duration age(Resource tombstone, Clock clock) {
    return Duration.between(Ulid.from(tombstone.getId().getUid()).getInstant(), clock.instant());
  }

  private static Duration backoff(int waits) {
    Duration wait = FIRST_WAIT.multipliedBy(1L << Math.min(waits - 1, 20));
    return wait.compareTo(LONGEST_WAIT) > 0 ? LONGEST_WAIT : wait;
  }

  private static Optional<Resource> read(SetpointClient client, ID id) {
    try {
      return Optional.of(client.readConsistent(id));
    } catch (SetpointException e) {
      if (e.isNotFound()) {
        return Optional.empty();
      }
      throw e;
    }
  }
}
