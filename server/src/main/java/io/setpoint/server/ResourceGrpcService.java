package io.setpoint.server;

import com.linecorp.armeria.server.annotation.Blocking;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.opentelemetry.api.trace.Span;
import io.setpoint.api.v1.DeleteRequest;
import io.setpoint.api.v1.DeleteResponse;
import io.setpoint.api.v1.ID;
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
import io.setpoint.resource.AclHooks.Authorizer;
import java.util.concurrent.Executor;
import java.util.function.BiFunction;

/**
 * The gRPC face of {@link ResourceHandler}.
 *
 * <p>Served on Armeria's I/O threads, every method but {@code write} is {@link Blocking}: it may
 * wait on the store, so it runs on the server's blocking executor. {@code write} does not wait: it
 * admits the request where it arrives and answers when the store has committed it ({@link
 * ResourceHandler#writeAsync}), so a write costs no blocking thread and no hand-off to one while
 * it is replicated.
 */
final class ResourceGrpcService extends ResourceServiceGrpc.ResourceServiceImplBase {
  private final ResourceHandler handler;
  private final WatchStreamer streamer;
  /** Null when the server does not trace. */
  private final WriteTraces traces;
  private final Executor blocking;

  /**
   * @param blocking where a write's work that waits on the store runs (a linearizable read after a
   *     lost race, an owner check)
   */
  public ResourceGrpcService(ResourceHandler handler, WatchStreamer streamer, Executor blocking) {
    this(handler, streamer, blocking, null);
  }

  /** As above, recording the trace of each write in {@code traces} (null: not tracing). */
  public ResourceGrpcService(ResourceHandler handler, WatchStreamer streamer, Executor blocking, WriteTraces traces) {
    this.handler = handler;
    this.streamer = streamer;
    this.blocking = blocking;
    this.traces = traces;
  }

  /** Before the store commits the write, so that no watch event of it goes out without its trace. */
  private void traced(ID id) {
    Span span = Span.current();
    if (traces == null || !span.getSpanContext().isSampled()) {
      return;
    }
    ID stored;
    try {
      // As the store will name it: the tenancy defaulted by the type's scope.
      stored = handler.canonicalId("id", true, id);
    } catch (RuntimeException e) {
      return; // the call itself answers with what is wrong
    }
    String key = WriteTraces.key(stored);
    span.setAttribute("setpoint.resource", key);
    traces.record(key, span.getSpanContext());
  }

  @Blocking
  @Override
  public void read(ReadRequest request, StreamObserver<ReadResponse> out) {
    unary(handler::read, request, out);
  }

  @Override
  public void write(WriteRequest request, StreamObserver<WriteResponse> out) {
    traced(request.getResource().getId());
    UnaryCalls.answerLater(() -> handler.writeAsync(CallerAuthorizer.current(), request, blocking), out);
  }

  @Blocking
  @Override
  public void writeStatus(WriteStatusRequest request, StreamObserver<WriteStatusResponse> out) {
    traced(request.getId());
    unary(handler::writeStatus, request, out);
  }

  @Blocking
  @Override
  public void list(ListRequest request, StreamObserver<ListResponse> out) {
    unary(handler::list, request, out);
  }

  @Blocking
  @Override
  public void listByOwner(ListByOwnerRequest request, StreamObserver<ListByOwnerResponse> out) {
    unary(handler::listByOwner, request, out);
  }

  @Blocking
  @Override
  public void delete(DeleteRequest request, StreamObserver<DeleteResponse> out) {
    traced(request.getId());
    unary(handler::delete, request, out);
  }

  @Blocking
  @Override
  public void mutateAndValidate(
      MutateAndValidateRequest request, StreamObserver<MutateAndValidateResponse> out) {
    unary(handler::mutateAndValidate, request, out);
  }

  @Blocking
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
