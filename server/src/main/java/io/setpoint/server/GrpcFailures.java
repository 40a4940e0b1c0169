package io.setpoint.server;

import com.google.protobuf.InvalidProtocolBufferException;
import com.linecorp.armeria.common.ContentTooLargeException;
import com.linecorp.armeria.common.RequestContext;
import com.linecorp.armeria.common.grpc.GrpcExceptionHandlerFunction;
import io.grpc.BindableService;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServerMethodDefinition;
import io.grpc.Status;
import java.util.HashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers what fails in the gRPC transport before a service method runs: request bytes that do
 * not decode (grpc-java's marshaller calls that {@code INTERNAL}, though the client sent them:
 * a string that is no UTF-8, a truncated field), and a request the HTTP layer cut off at its size
 * limit (which reached the client as {@code UNKNOWN} without a message). Install it with {@code
 * GrpcServiceBuilder.exceptionHandler}; failures it does not recognise keep their status.
 */
final class GrpcFailures implements GrpcExceptionHandlerFunction {
  private static final Logger log = LoggerFactory.getLogger(GrpcFailures.class);

  /** The full name of each method's request message, by the method's full name. */
  private final Map<String, String> requestTypes;
  private final long maxRequestBytes;

  private GrpcFailures(Map<String, String> requestTypes, long maxRequestBytes) {
    this.requestTypes = requestTypes;
    this.maxRequestBytes = maxRequestBytes;
  }

  /**
   * @param services the services served, to name a method's request message in errors
   * @param maxRequestBytes the request size limit, to state in errors
   */
  public static GrpcFailures of(long maxRequestBytes, BindableService... services) {
    Map<String, String> types = new HashMap<>();
    for (BindableService service : services) {
      for (ServerMethodDefinition<?, ?> method : service.bindService().getMethods()) {
        MethodDescriptor<?, ?> descriptor = method.getMethodDescriptor();
        if (descriptor.getRequestMarshaller() instanceof MethodDescriptor.PrototypeMarshaller<?> proto
            && proto.getMessagePrototype() instanceof com.google.protobuf.Message message) {
          types.put(descriptor.getFullMethodName(), message.getDescriptorForType().getFullName());
        }
      }
    }
    return new GrpcFailures(Map.copyOf(types), maxRequestBytes);
  }

  @Override
  public Status apply(RequestContext ctx, Status status, Throwable cause, Metadata metadata) {
    InvalidProtocolBufferException undecodable = find(cause, InvalidProtocolBufferException.class);
    if (undecodable == null) {
      undecodable = find(status.getCause(), InvalidProtocolBufferException.class);
    }
    if (undecodable != null) {
      String type = requestTypes.getOrDefault(method(ctx), "the request message");
      return Status.INVALID_ARGUMENT.withDescription(
          Errors.bounded("request: cannot be decoded as " + type + ": " + undecodable.getMessage()));
    }
    if (find(cause, ContentTooLargeException.class) != null || find(status.getCause(), ContentTooLargeException.class) != null) {
      return Status.RESOURCE_EXHAUSTED.withDescription(
          "request: larger than the limit of " + maxRequestBytes + " bytes");
    }
    if (status.getCode() == Status.Code.UNKNOWN || status.getCode() == Status.Code.INTERNAL) {
      log.debug("gRPC call {} failed in transport: {}", method(ctx), status, cause);
    }
    return null; // Armeria's default mapping
  }

  /** The method's full name, {@code package.Service/Method}, from the request path. */
  private static String method(RequestContext ctx) {
    String path = ctx.path();
    return path.startsWith("/") ? path.substring(1) : path;
  }

  private static <T extends Throwable> T find(Throwable failure, Class<T> type) {
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (type.isInstance(t)) {
        return type.cast(t);
      }
    }
    return null;
  }
}
