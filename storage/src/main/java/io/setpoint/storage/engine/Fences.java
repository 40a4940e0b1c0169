package io.setpoint.storage.engine;

import com.google.protobuf.InvalidProtocolBufferException;
import io.setpoint.api.Ids;
import io.setpoint.api.Leases;
import io.setpoint.api.Types;
import io.setpoint.api.core.v1.Lease;
import io.setpoint.api.v1.Fence;
import io.setpoint.api.v1.Resource;
import io.setpoint.storage.StorageException;
import io.setpoint.storage.StorageException.Reason;

/**
 * Checks a write's {@link Fence} against the stored lease. Backends call it under their writer,
 * just before the write it guards, so no change of holder can come in between.
 */
final class Fences {
  private Fences() {}

  /** Whether {@code fence} fences anything: the empty fence (no lease) lets every write through. */
  static boolean isSet(Fence fence) {
    return !fence.getLease().isEmpty();
  }

  /**
   * Passes when {@code fence} is empty, or when the lease it names is stored, names its holder at
   * its epoch and has not been released.
   *
   * @throws StorageException {@code FENCED}, saying who holds the lease now
   */
  static void check(ResourceIndex index, Fence fence) {
    if (!isSet(fence)) {
      return;
    }
    Resource stored;
    try {
      stored = index.read(Ids.of(Types.LEASE, fence.getLease()));
    } catch (StorageException e) {
      if (e.reason() == Reason.NOT_FOUND) {
        throw fenced(fence, "it does not exist");
      }
      throw e;
    }
    Lease lease;
    try {
      lease = stored.getData().unpack(Lease.class);
    } catch (InvalidProtocolBufferException e) {
      throw fenced(fence, "it does not hold a core.v1.Lease");
    }
    if (!lease.getHolder().equals(fence.getHolder()) || lease.getEpoch() != fence.getEpoch()) {
      throw fenced(fence, "it is held by " + lease.getHolder() + " at epoch " + lease.getEpoch());
    }
    if (Leases.isReleased(lease)) {
      throw fenced(fence, "its holder released it");
    }
  }

  private static StorageException fenced(Fence fence, String why) {
    return new StorageException(
        Reason.FENCED,
        "fenced: lease " + fence.getLease() + " is not held by " + fence.getHolder() + " at epoch "
            + fence.getEpoch() + " (" + why + "); this writer lost the lease and must not write");
  }
}
