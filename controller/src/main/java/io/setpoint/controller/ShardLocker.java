package io.setpoint.controller;

import io.setpoint.api.Shards;
import io.setpoint.controller.loop.Locker;
import java.time.Duration;
import java.util.function.Function;

/**
 * The {@link Locker} of a generic loop in a shard group ({@link Sharding#locker}): a key may be
 * handled while its slot is open on this member, by the shard hash of the key's text. A key of
 * another member is looked at again after a retry period, so it is picked up when its slot moves
 * here.
 */
final class ShardLocker<K> implements Locker<K> {
  private final ShardMembership membership;
  private final Function<? super K, String> keyText;
  private final Duration retryPeriod;

  ShardLocker(ShardMembership membership, Function<? super K, String> keyText, Duration retryPeriod) {
    this.membership = membership;
    this.keyText = keyText;
    this.retryPeriod = retryPeriod;
  }

  @Override
  public boolean tryAcquire(K key) {
    return membership.fence() != null && membership.gate().enter(slot(key));
  }

  @Override
  public void release(K key, boolean gone) {
    membership.gate().exit(slot(key));
  }

  @Override
  public Duration retryDelay() {
    return retryPeriod;
  }

  private int slot(K key) {
    return ShardRing.slotOf(Shards.hash(keyText.apply(key)));
  }
}
