package io.setpoint.controller.loop;

import com.google.protobuf.Any;
import com.google.protobuf.Timestamp;
import io.setpoint.api.Ids;
import io.setpoint.api.Leases;
import io.setpoint.api.Types;
import io.setpoint.api.core.v1.Lease;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.client.SetpointClient;
import io.setpoint.controller.time.Ticker;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link LeaseLocker} instance's heartbeat lease: written on first use, renewed every third of
 * the lease duration on the ticker, expired on {@link #stop}. The key leases the instance creates
 * are owned by it, and another instance may take a key over once its holder's heartbeat expired.
 */
final class Heartbeat {
  private static final Logger log = LoggerFactory.getLogger(Heartbeat.class);

  private final SetpointClient client;
  private final String group;
  private final String holder;
  private final String namePrefix;
  private final Duration duration;
  private final Clock clock;
  private final Ticker ticker;

  private final Object lifecycle = new Object();
  private Thread renewer; // non-null while started
  private ID id; // with its uid, once written
  private volatile Instant renewedAt = Instant.MIN;
  private volatile BiConsumer<String, Throwable> faults = (what, cause) -> {};

  /** {@code namePrefix} names the heartbeats of the group: each is the prefix and its holder. */
  Heartbeat(SetpointClient client, String group, String holder, String namePrefix, Duration duration, Clock clock,
      Ticker ticker) {
    this.client = client;
    this.group = group;
    this.holder = holder;
    this.namePrefix = namePrefix;
    this.duration = duration;
    this.clock = clock;
    this.ticker = ticker;
  }

  /** Calls {@code listener} with each failed renewal (after it is logged). */
  void onFault(BiConsumer<String, Throwable> listener) {
    this.faults = Objects.requireNonNull(listener, "listener");
  }

  /** This instance's heartbeat, written and renewing from the first call on. */
  ID ensureStarted() {
    synchronized (lifecycle) {
      if (renewer == null) {
        id = renew().getId();
        renewer = Thread.ofVirtual().name("setpoint-lease-" + holder).start(this::renewLoop);
      }
      return id;
    }
  }

  /** Whether the heartbeat was renewed recently enough for no other instance to think it expired. */
  boolean fresh() {
    return clock.instant().isBefore(renewedAt.plus(duration.dividedBy(2)));
  }

  /** Whether {@code other}'s heartbeat exists and has not expired. */
  boolean alive(String other) {
    Optional<Resource> beat = client.findConsistent(idOf(other));
    if (beat.isEmpty()) {
      return false;
    }
    Timestamp expires = Leases.of(beat.get()).getExpiresAt();
    return clock.instant().isBefore(Instant.ofEpochSecond(expires.getSeconds(), expires.getNanos()));
  }

  /**
   * Stops renewing; {@code release} then gives up the key leases while the heartbeat still counts,
   * and the heartbeat is expired (deleted once it owns no lease), so others take over at once.
   * Does nothing if it never started.
   */
  void stop(Runnable release) {
    Thread toStop;
    synchronized (lifecycle) {
      toStop = renewer;
      renewer = null;
      id = null;
      renewedAt = Instant.MIN;
    }
    if (toStop == null) {
      return;
    }
    toStop.interrupt();
    try {
      release.run();
      Resource expired = write(clock.instant(), Duration.ZERO);
      if (client.listByOwner(expired.getId()).isEmpty()) {
        client.delete(expired.getId(), expired.getVersion());
      }
    } catch (RuntimeException e) {
      log.warn("lease holder {} of {} could not release its leases; they expire after {}", holder, group, duration, e);
    }
  }

  private void renewLoop() {
    while (true) {
      try {
        ticker.sleep(duration.dividedBy(3));
      } catch (InterruptedException e) {
        return;
      }
      try {
        renew();
      } catch (Throwable e) {
        // Errors too: a renewer that ended would let every lease of this holder expire unseen.
        log.warn("lease holder {} of {} failed to renew its heartbeat", holder, group, e);
        faults.accept("lease heartbeat", e);
      }
    }
  }

  private Resource renew() {
    Instant now = clock.instant();
    Resource written = write(now, duration);
    renewedAt = now;
    return written;
  }

  private Resource write(Instant now, Duration validFor) {
    Lease beat = Lease.newBuilder()
        .setGroup(group)
        .setHolder(holder)
        .setRenewedAt(Leases.timestamp(now))
        .setExpiresAt(Leases.timestamp(now.plus(validFor)))
        .build();
    // Only this instance writes its heartbeat, so a blind write is safe.
    return client.write(Resource.newBuilder().setId(idOf(holder)).setData(Any.pack(beat)).build());
  }

  private ID idOf(String holderId) {
    return Ids.of(Types.LEASE, namePrefix + holderId);
  }
}
