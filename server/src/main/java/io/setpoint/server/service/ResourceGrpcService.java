package io.setpoint.server.service;

import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.setpoint.api.v1.DeleteRequest;
import io.setpoint.api.v1.DeleteResponse;
import io.setpoint.api.v1.ListByOwnerRequest;
import io.setpoint.api.v1.ListByOwnerResponse;
import io.setpoint.api.v1.ListRequest;
import io.setpoint.api.v1.ListResponse;
import io.setpoint.api.v1.MutateAndValidateRequest;
import io.setpoint.api.v1.MutateAndValidateResponse;
import io.setpoint.api.v1.ReadRequest;
import io.setpoint.api.v1.ReadResponse;
import io.setpoint.api.v1.ResourceServiceGrpc;
import io.setpoint.api.v1.WatchEvent;
import io.setpoint.api.v1.WatchListRequest;
import io.setpoint.api.v1.WriteRequest;
import io.setpoint.api.v1.WriteResponse;
import io.setpoint.api.v1.WriteStatusRequest;
import io.setpoint.api.v1.WriteStatusResponse;
import io.setpoint.resource.Authorizer;
import java.util.function.BiFunction;

/** The gRPC face of {@link ResourceHandler}. */
public final class ResourceGrpcService extends ResourceServiceGrpc.ResourceServiceImplBase {
  private final ResourceHandler handler;
  private final WatchStreamer streamer;

  public ResourceGrpcService(ResourceHandler handler, WatchStreamer streamer) {
    this.handler = handler;
    this.streamer = streamer;
  }

  @Override
  public void read(ReadRequest request, StreamObserver<ReadResponse> out) {
    unary(handler::read, request, out);
  }

  @Override
  public void write(WriteRequest request, StreamObserver<WriteResponse> out) {
    unary(handler::write, request, out);
  }

  @Override
  public void writeStatus(WriteStatusRequest request, StreamObserver<WriteStatusResponse> out) {
    unary(handler::writeStatus, request, out);
  }

  @Override
  public void list(ListRequest request, StreamObserver<ListResponse> out) {
    unary(handler::list, request, out);
  }

  @Override
  public void listByOwner(ListByOwnerRequest request, StreamObserver<ListByOwnerResponse> out) {
    unary(handler::listByOwner, request, out);
  }

  @Override
  public void delete(DeleteRequest request, StreamObserver<DeleteResponse> out) {
    unary(handler::delete, request, out);
  }

  @Override
  public void mutateAndValidate(
      MutateAndValidateRequest request, StreamObserver<MutateAndValidateResponse> out) {
    unary(handler::mutateAndValidate, request, out);
  }

  @Override
  public void watchList(WatchListRequest request, StreamObserver<WatchEvent> out) {
    FilteredWatch watch;
    try {
      watch = handler.watchList(CallerAuthorizer.current(), request);
    } catch (RuntimeException e) {
      out.onError(Errors.toStatus(e));
      return;
    }
    streamer.stream(watch, new GrpcWatchSink((ServerCallStreamObserver<WatchEvent>) out));
  }

  private static <Q, R> void unary(
      BiFunction<Authorizer, Q, R> method, Q request, StreamObserver<R> out) {
    UnaryCalls.answer(() -> method.apply(CallerAuthorizer.current(), request), out);
  }
}
