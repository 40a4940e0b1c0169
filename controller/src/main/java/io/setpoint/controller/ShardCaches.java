package io.setpoint.controller;

import io.setpoint.api.Types;
import io.setpoint.api.v1.HashRange;
import io.setpoint.api.v1.Type;
import io.setpoint.controller.Controller.Placement;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import org.slf4j.LoggerFactory;

/**
 * Shapes a shard member's cache: the managed types of its SHARDED controllers hold only the
 * shard's ranges, filled before their slots open, and every other type stays whole. As the shard
 * group's listener it also places the controllers again when this member joins or leaves.
 */
final class ShardCaches implements Sharding.Listener {
  /** How long opening shard slots waits for the cache to hold their resources. */
  private static final Duration FILL_TIMEOUT = Duration.ofMinutes(2);

  private final SharedCache cache;
  private final Sharding sharding;
  private final Supplier<List<ControllerSpec>> controllers;
  private final Runnable placeAll;

  /**
   * @param controllers the controllers registered now
   * @param placeAll starts or stops each controller as its placement says
   */
  ShardCaches(SharedCache cache, Sharding sharding, Supplier<List<ControllerSpec>> controllers, Runnable placeAll) {
    this.cache = cache;
    this.sharding = sharding;
    this.controllers = controllers;
    this.placeAll = placeAll;
  }

  /** Fills the shard's caches before its slots open. */
  @Override
  public void prepare(List<HashRange> ranges) throws InterruptedException {
    for (Type type : shardOnlyTypes()) {
      if (!cache.restrict(type, ranges, FILL_TIMEOUT)) {
        LoggerFactory.getLogger(Manager.class).warn("the cache of {} did not fill within {}",
            Types.format(type), FILL_TIMEOUT);
      }
    }
  }

  @Override
  public void prefetch(List<HashRange> ranges) {
    try {
      for (Type type : shardOnlyTypes()) {
        cache.restrict(type, ranges, Duration.ZERO);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void membershipChanged() {
    try {
      // A member that just joined holds no slot yet: its controllers start on an empty cache
      // rather than listing the whole type only to drop most of it.
      prepare(sharding.ranges());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    }
    placeAll.run();
  }

  /** Makes the cache hold whole every type that a newly registered controller needs whole. */
  void keepWhole() {
    Set<Type> shardOnly = shardOnlyTypes();
    for (ControllerSpec c : controllers.get()) {
      for (Type type : c.cachedTypes()) {
        if (!shardOnly.contains(type) && !cache.isWhole(type)) {
          try {
            cache.unrestrict(type, FILL_TIMEOUT);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
          }
        }
      }
    }
  }

  /**
   * The managed types of SHARDED controllers that nothing else here needs whole: their cache holds
   * only the shard's ranges. A type another controller caches, or a sharded one watches (its
   * resources map to keys of every shard), stays whole.
   */
  private Set<Type> shardOnlyTypes() {
    Set<Type> types = new HashSet<>();
    Set<Type> whole = new HashSet<>();
    for (ControllerSpec c : controllers.get()) {
      for (Type type : c.cachedTypes()) {
        if (c.placement() == Placement.SHARDED && type.equals(c.managedType())) {
          types.add(type);
        } else {
          whole.add(type);
        }
      }
    }
    types.removeAll(whole);
    return types;
  }
}
