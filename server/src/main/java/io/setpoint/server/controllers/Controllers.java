package io.setpoint.server.controllers;

import io.grpc.Status;
import io.setpoint.api.Types;
import io.setpoint.api.controller.v1.ControllerInfo;
import io.setpoint.api.controller.v1.ListControllersResponse;
import io.setpoint.api.controller.v1.ReconcileRequest;
import io.setpoint.api.controller.v1.ReconcileResponse;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Tenancy;
import io.setpoint.api.v1.Type;
import io.setpoint.controller.manager.ControllerState;
import io.setpoint.controller.manager.Manager;
import io.setpoint.resource.Authorizer;
import io.setpoint.resource.Permission;
import io.setpoint.resource.ValidationException;
import io.setpoint.server.service.ResourceHandler;
import java.util.function.Supplier;

/**
 * The controller API's behaviour, independent of transport (gRPC's {@link ControllerGrpcService}
 * and the HTTP gateway's {@code /api/controllers} call it): the agent manager's controllers, and
 * reconciling one resource on demand. Listing needs {@code operator:read}, reconciling {@code
 * operator:write}.
 */
public final class Controllers {
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
          .setFailure(state.failure().orElse("")));
    }
    return out.build();
  }

  public ReconcileResponse reconcile(Authorizer authz, ReconcileRequest request) {
    require(authz, Permission.OPERATOR_WRITE);
    if (request.getController().isEmpty()) {
      throw ValidationException.of("controller", "required", "must name a controller");
    }
    ID id = resources.canonicalId("id", request.hasId(), request.getId());
    Manager m = manager();
    ControllerState state = m.controllers().stream()
        .filter(c -> c.name().equals(request.getController()))
        .findFirst()
        .orElseThrow(() -> Status.NOT_FOUND
            .withDescription("no controller named " + request.getController() + "; 'setpoint controller list' lists them")
            .asRuntimeException());
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
