package io.setpoint.server;

import com.linecorp.armeria.server.annotation.Blocking;
import io.grpc.stub.StreamObserver;
import io.setpoint.api.controller.v1.ControllerServiceGrpc;
import io.setpoint.api.controller.v1.ListControllersRequest;
import io.setpoint.api.controller.v1.ListControllersResponse;
import io.setpoint.api.controller.v1.ListReconcilesRequest;
import io.setpoint.api.controller.v1.ListReconcilesResponse;
import io.setpoint.api.controller.v1.ReconcileRequest;
import io.setpoint.api.controller.v1.ReconcileResponse;

/** {@code setpoint.controller.v1.ControllerService}: {@link Controllers} over gRPC. */
@Blocking
final class ControllerGrpcService extends ControllerServiceGrpc.ControllerServiceImplBase {
  private final Controllers controllers;

  public ControllerGrpcService(Controllers controllers) {
    this.controllers = controllers;
  }

  @Override
  public void listControllers(ListControllersRequest request, StreamObserver<ListControllersResponse> out) {
    UnaryCalls.answer(() -> controllers.list(CallerAuthorizer.current()), out);
  }

  @Override
  public void listReconciles(ListReconcilesRequest request, StreamObserver<ListReconcilesResponse> out) {
    UnaryCalls.answer(() -> controllers.reconciles(CallerAuthorizer.current(), request), out);
  }

  @Override
  public void reconcile(ReconcileRequest request, StreamObserver<ReconcileResponse> out) {
    UnaryCalls.answer(() -> controllers.reconcile(CallerAuthorizer.current(), request), out);
  }
}
