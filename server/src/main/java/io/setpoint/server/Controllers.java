package io.setpoint.server;

import com.google.protobuf.Timestamp;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.setpoint.api.Ids;
import io.setpoint.api.Types;
import io.setpoint.api.controller.v1.ControllerInfo;
import io.setpoint.api.controller.v1.ListControllersResponse;
import io.setpoint.api.controller.v1.ListReconcilesRequest;
import io.setpoint.api.controller.v1.ListReconcilesResponse;
import io.setpoint.api.controller.v1.ReconcileInfo;
import io.setpoint.api.controller.v1.ReconcileRequest;
import io.setpoint.api.controller.v1.ReconcileResponse;
import io.setpoint.api.controller.v1.ReconcileTrigger;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Tenancy;
import io.setpoint.api.v1.Type;
import io.setpoint.controller.Manager;
import io.setpoint.controller.Manager.ControllerState;
import io.setpoint.controller.Manager.ReconcileRecord;
import io.setpoint.controller.queue.Trigger;
import io.setpoint.resource.AclHooks.Authorizer;
import io.setpoint.resource.AclHooks.Permission;
import io.setpoint.resource.ValidationException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Supplier;

/**
 * The controller API's behaviour, independent of transport (gRPC's {@link ControllerGrpcService}
 * and the HTTP gateway's {@code /api/controllers} call it): the agent manager's controllers,
 * reconciling one resource on demand, and their recent reconciles. Listing needs {@code
 * operator:read}, reconciling {@code operator:write}; the reconciles of one resource need {@code
 * operator:read} or read on that resource, all reconciles {@code operator:read}.
 */
final class Controllers {
  /** The most reconciles one call returns: what a controller keeps. */
  static final int MAX_RECONCILES = 256;

  private final Supplier<Manager> manager;
  private final ResourceHandler resources;

  /**
   * Serves the manager {@code manager} returns, which is null until the agent has built it (calls
   * then fail with {@code UNAVAILABLE}); {@code resources} checks the ids of requests.
   */
  public Controllers(Supplier<Manager> manager, ResourceHandler resources) {
    this.manager = manager;
    this.resources = resources;
  }

  public ListControllersResponse list(Authorizer authz) {
    require(authz, Permission.OPERATOR_READ);
    ListControllersResponse.Builder out = ListControllersResponse.newBuilder();
    for (ControllerState state : manager().controllers()) {
      out.addControllers(ControllerInfo.newBuilder()
          .setName(state.name())
          .setManagedType(state.managedType())
          .setPlacement(state.placement().name())
          .setRunning(state.running())
          .setQueueDepth(state.queueDepth())
          .setFailure(state.failure().orElse(""))
          .setWorkers(state.workers())
          .setReconciles(state.reconciles())
          .setErrors(state.errors())
          .setFaults(state.faults())
          .setLastFault(state.lastFault().orElse("")));
    }
    return out.build();
  }

  /** One controller, as {@link #list} shows it; {@code NOT_FOUND} for an unknown name. */
  public ControllerInfo get(Authorizer authz, String name) {
    return list(authz).getControllersList().stream()
        .filter(c -> c.getName().equals(name))
        .findFirst()
        .orElseThrow(() -> unknown(name));
  }

  public ReconcileResponse reconcile(Authorizer authz, ReconcileRequest request) {
    require(authz, Permission.OPERATOR_WRITE);
    if (request.getController().isEmpty()) {
      throw ValidationException.of("controller", "required", "must name a controller");
    }
    ID id = resources.canonicalId("id", request.hasId(), request.getId());
    Manager m = manager();
    ControllerState state = state(m, request.getController());
    if (!Types.sameGroupKind(state.managedType(), id.getType())) {
      throw ValidationException.of("id.type", "managed-type", "controller " + state.name() + " manages "
          + Types.format(state.managedType()) + ", not " + Types.format(id.getType()));
    }
    try {
      m.trigger(state.name(), id.toBuilder().setType(state.managedType()).build(), "requested through the API");
    } catch (IllegalStateException e) {
      throw Status.FAILED_PRECONDITION.withDescription(e.getMessage()).asRuntimeException();
    }
    return ReconcileResponse.getDefaultInstance();
  }

  public ListReconcilesResponse reconciles(Authorizer authz, ListReconcilesRequest request) {
    ID id = null;
    if (request.hasId()) {
      id = Ids.withoutUid(resources.canonicalId("id", true, request.getId()));
      if (!authz.allowed(Permission.OPERATOR_READ, Type.getDefaultInstance(), Tenancy.getDefaultInstance(), "")) {
        authz.require(Permission.READ, id.getType(), id.getTenancy(), id.getName());
      }
    } else {
      require(authz, Permission.OPERATOR_READ);
    }
    if (request.getLimit() > MAX_RECONCILES) {
      throw ValidationException.of("limit", "max", "at most " + MAX_RECONCILES + ", was " + request.getLimit());
    }
    int limit = request.getLimit() == 0 ? MAX_RECONCILES : request.getLimit();
    Manager m = manager();
    List<String> names = request.getController().isEmpty()
        ? m.controllers().stream().map(ControllerState::name).toList()
        : List.of(state(m, request.getController()).name());
    String text = id == null ? null : Ids.format(id);
    List<ReconcileRecord> found = new ArrayList<>();
    for (String name : names) {
      found.addAll(id == null ? m.reconciles(name, limit) : m.reconciles(name, id));
      if (id != null) {
        // The reconciles a change of this resource caused, of other resources.
        for (ReconcileRecord r : m.reconciles(name, MAX_RECONCILES)) {
          if (!r.key().equals(text) && causedBy(r, text)) {
            found.add(r);
          }
        }
      }
    }
    found.sort(Comparator.comparing(ReconcileRecord::started).reversed());
    ListReconcilesResponse.Builder out = ListReconcilesResponse.newBuilder();
    for (ReconcileRecord r : found.subList(0, Math.min(limit, found.size()))) {
      out.addReconciles(message(r));
    }
    return out.build();
  }

  /** Whether a trigger of {@code r} is a change of the resource {@code id} (formatted, no uid). */
  private static boolean causedBy(ReconcileRecord r, String id) {
    for (Trigger t : r.triggers()) {
      // Event details read "upsert ID @ revision N", the id possibly with "@uid".
      String detail = t.detail();
      int at = detail.indexOf(id);
      if (at >= 0) {
        int end = at + id.length();
        if (end == detail.length() || detail.charAt(end) == ' ' || detail.charAt(end) == '@') {
          return true;
        }
      }
    }
    return false;
  }

  private static ReconcileInfo message(ReconcileRecord r) {
    ReconcileInfo.Builder out = ReconcileInfo.newBuilder()
        .setController(r.controller())
        .setKey(r.key())
        .setStarted(Timestamp.newBuilder().setSeconds(r.started().getEpochSecond()).setNanos(r.started().getNano()))
        .setQueueWait(duration(r.queueWait()))
        .setDuration(duration(r.duration()))
        .setResult(r.result())
        .setMessage(r.message());
    for (Trigger t : r.triggers()) {
      out.addTriggers(ReconcileTrigger.newBuilder().setKind(t.kind().name()).setDetail(t.detail()));
    }
    return out.build();
  }

  private static com.google.protobuf.Duration duration(java.time.Duration d) {
    return com.google.protobuf.Duration.newBuilder().setSeconds(d.getSeconds()).setNanos(d.getNano()).build();
  }

  private static ControllerState state(Manager m, String name) {
    return m.controllers().stream().filter(c -> c.name().equals(name)).findFirst().orElseThrow(() -> unknown(name));
  }

  private static StatusRuntimeException unknown(String name) {
    return Status.NOT_FOUND.withDescription("no controller named " + name + "; 'setpoint controller list' lists them")
        .asRuntimeException();
  }

  private Manager manager() {
    Manager m = manager.get();
    if (m == null) {
      throw Status.UNAVAILABLE.withDescription("the agent is starting its controllers").asRuntimeException();
    }
    return m;
  }

  private static void require(Authorizer authz, Permission permission) {
    authz.require(permission, Type.getDefaultInstance(), Tenancy.getDefaultInstance(), "");
  }
}
