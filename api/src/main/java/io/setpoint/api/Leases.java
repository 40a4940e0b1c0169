package io.setpoint.api;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Timestamp;
import io.setpoint.api.core.v1.Lease;
import io.setpoint.api.v1.Resource;
import java.time.Instant;

/** The rules of {@code core.v1.Lease} that the server and its clients must read alike. */
public final class Leases {
  private Leases() {}

  /**
   * Whether its holder released the lease: a leader-election lease is released by setting {@code
   * expires_at} to {@code renewed_at}, so one that does not expire after its renewal is free.
   */
  public static boolean isReleased(Lease lease) {
    Timestamp expires = lease.getExpiresAt();
    Timestamp renewed = lease.getRenewedAt();
    return expires.getSeconds() != renewed.getSeconds()
        ? expires.getSeconds() < renewed.getSeconds()
        : expires.getNanos() <= renewed.getNanos();
  }

  /**
   * The lease {@code resource} holds.
   *
   * @throws IllegalStateException when it holds something else
   */
  public static Lease of(Resource resource) {
    try {
      return resource.getData().unpack(Lease.class);
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException(Ids.format(resource.getId()) + " does not hold a core.v1.Lease", e);
    }
  }

  /** {@code instant} as the timestamps of a lease record it. */
  public static Timestamp timestamp(Instant instant) {
    return Timestamp.newBuilder().setSeconds(instant.getEpochSecond()).setNanos(instant.getNano()).build();
  }
}
