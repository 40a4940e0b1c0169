package io.setpoint.server;

import com.google.protobuf.Timestamp;
import io.setpoint.api.Ids;
import io.setpoint.api.Statuses;
import io.setpoint.api.v1.Condition;
import io.setpoint.api.v1.Fence;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Status;
import io.setpoint.api.v1.WriteStatusRequest;
import io.setpoint.api.v1.WriteStatusResponse;
import io.setpoint.resource.AclHooks.Authorizer;
import io.setpoint.resource.Registration;
import io.setpoint.resource.Violations;
import io.setpoint.storage.Backend;
import io.setpoint.storage.StorageException;
import java.time.Clock;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

/**
 * WriteStatus: sets one status of a stored incarnation with compare-and-swap, stamped with the
 * time it was written and the times its conditions last changed state.
 */
final class StatusWrites {
  private final Backend backend;
  private final RequestValidator validator;
  private final ReadsForWrite reads;
  private final Admission admission;
  private final Clock clock;

  StatusWrites(Backend backend, RequestValidator validator, ReadsForWrite reads, Admission admission, Clock clock) {
    this.backend = backend;
    this.validator = validator;
    this.reads = reads;
    this.admission = admission;
    this.clock = clock;
  }

  /** A WriteStatus without a fence. */
  WriteStatusResponse writeStatus(Authorizer authz, WriteStatusRequest req) {
    ID id = validator.id("id", req.hasId(), req.getId(), true);
    Violations v = Violations.at("");
    RequestValidator.status(v, req.getKey(), req.hasStatus(), req.getStatus());
    RequestValidator.version(v, "version", req.getVersion());
    v.throwIfAny();
    String requestId = req.getRequestId();
    RequestValidator.requestId("request_id", requestId);
    Registration<?> reg = validator.registration(id);
    boolean blind = req.getVersion().isEmpty();
    return BlindWrites.retry(blind, () -> {
      Resource existing = reads.authorized(authz, reg, id);
      // It answers with the whole resource, so it needs read as well as write, asked before
      // anything about the stored resource (whether it exists, its uid) is told.
      reg.acls().read().check(authz, id, existing);
      Resource earlier = requestId.isEmpty() ? null : backend.findRequest(id, requestId);
      if (earlier != null) {
        // Sent again after its answer was lost: what it stored, not a compare-and-swap lost to itself.
        return WriteStatusResponse.newBuilder().setResource(earlier).build();
      }
      if (existing == null) {
        throw Errors.notFound(Ids.format(id) + " not found");
      }
      if (!existing.getId().getUid().equals(id.getUid())) {
        throw Errors.failedPrecondition(
            "id.uid " + id.getUid() + " does not match the stored incarnation " + existing.getId().getUid());
      }
      if (!blind && !req.getVersion().equals(existing.getVersion())) {
        throw Errors.aborted("version " + req.getVersion() + " does not match the stored version " + existing.getVersion());
      }
      Status previous = existing.getStatusMap().get(req.getKey());
      if (previous != null && Statuses.equal(previous, req.getStatus())) {
        return WriteStatusResponse.newBuilder().setResource(existing).build();
      }
      Resource next = existing.toBuilder().putStatus(req.getKey(), stamp(req.getStatus(), previous)).build();
      admission.checkSize(next);
      try {
        return WriteStatusResponse.newBuilder()
            .setResource(backend.writeCas(next, Fence.getDefaultInstance(), requestId)).build();
      } catch (StorageException e) {
        if (blind && e.reason() == StorageException.Reason.CAS_FAILURE) {
          return null;
        }
        throw e;
      }
    }, () -> "status write of " + Ids.format(id));
  }

  /** Sets {@code updated_at}, and each condition's transition time unless its state is unchanged. */
  private Status stamp(Status status, Status previous) {
    Timestamp now = timestamp(clock.instant());
    Map<String, Condition> before = new HashMap<>();
    if (previous != null) {
      for (Condition c : previous.getConditionsList()) {
        before.put(c.getType(), c);
      }
    }
    Status.Builder out = status.toBuilder().setUpdatedAt(now).clearConditions();
    for (Condition c : status.getConditionsList()) {
      Condition prior = before.get(c.getType());
      Timestamp transition =
          prior != null && prior.getState() == c.getState() && prior.hasLastTransitionTime()
              ? prior.getLastTransitionTime()
              : now;
      out.addConditions(c.toBuilder().setLastTransitionTime(transition));
    }
    return out.build();
  }

  private static Timestamp timestamp(Instant instant) {
    return Timestamp.newBuilder().setSeconds(instant.getEpochSecond()).setNanos(instant.getNano()).build();
  }
}
