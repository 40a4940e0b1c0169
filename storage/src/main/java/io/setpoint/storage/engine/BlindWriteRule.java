package io.setpoint.storage.engine;

import io.setpoint.api.Ids;
import io.setpoint.api.Resources;
import io.setpoint.api.Resources.Finalizers;
import io.setpoint.api.v1.Resource;
import io.setpoint.storage.StorageException;
import io.setpoint.storage.StorageException.Reason;

/**
 * What a blind write stores over what is stored when it is applied (see {@link
 * io.setpoint.storage.Backend#putAsync}): a pure function of the two and of the uid and
 * generation its proposer chose, so every member of a cluster applies the same.
 */
final class BlindWriteRule {
  private BlindWriteRule() {}

  /**
   * The resource to store over {@code live} (null when nothing is stored), or {@code live} itself
   * when {@code input} changes neither its data nor its metadata.
   *
   * @throws StorageException {@code UNDECIDED} when the write needs a decision this rule leaves to
   *     the caller: a create under an owner or of a given uid, another uid or owner than the
   *     stored one's, a stored resource that waits for its finalizers
   */
  static Resource over(Resource live, Resource input, String uid, String generation) {
    if (live == null) {
      if (input.hasOwner() || !input.getId().getUid().isEmpty()) {
        throw undecided(input, "a create under an owner or of a given uid");
      }
      return input.toBuilder().setId(input.getId().toBuilder().setUid(uid)).setGeneration(generation).build();
    }
    if (!input.getId().getUid().isEmpty() && !input.getId().getUid().equals(live.getId().getUid())) {
      throw undecided(input, "another incarnation than the stored one");
    }
    if (!input.getOwner().equals(live.getOwner())) {
      throw undecided(input, "another owner than the stored one");
    }
    if (Finalizers.isMarkedForDeletion(live)) {
      throw undecided(input, "a resource that waits for its finalizers");
    }
    boolean sameData = input.getData().equals(live.getData());
    if (sameData && input.getMetadataMap().equals(live.getMetadataMap())) {
      return live;
    }
    return Resources.of(
        live.getId(),
        live.hasOwner() ? live.getOwner() : null,
        live.getVersion(),
        sameData ? live.getGeneration() : generation,
        input.getMetadataMap(),
        live.getStatusMap(),
        input.hasData() ? input.getData() : null);
  }

  private static StorageException undecided(Resource input, String what) {
    return new StorageException(Reason.UNDECIDED,
        "the blind write of " + Ids.format(Ids.withoutUid(input.getId())) + " is " + what + ": decide it from a read");
  }
}
