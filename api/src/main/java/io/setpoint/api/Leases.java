package io.setpoint.api;

import com.google.protobuf.Timestamp;
import io.setpoint.api.core.v1.Lease;

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
}
