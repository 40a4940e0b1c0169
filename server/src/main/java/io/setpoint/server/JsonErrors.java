package io.setpoint.server;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.rpc.BadRequest;
import com.google.rpc.ErrorInfo;
import com.linecorp.armeria.common.AggregatedHttpResponse;
import com.linecorp.armeria.common.ContentTooLargeException;
import com.linecorp.armeria.common.HttpResponse;
import com.linecorp.armeria.common.HttpStatus;
import com.linecorp.armeria.common.MediaType;
import com.linecorp.armeria.common.RequestHeaders;
import com.linecorp.armeria.common.stream.AbortedStreamException;
import com.linecorp.armeria.common.stream.CancelledSubscriptionException;
import com.linecorp.armeria.common.stream.ClosedStreamException;
import com.linecorp.armeria.server.HttpStatusException;
import com.linecorp.armeria.server.ServerErrorHandler;
import com.linecorp.armeria.server.ServiceConfig;
import com.linecorp.armeria.server.ServiceErrorHandler;
import com.linecorp.armeria.server.ServiceRequestContext;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.StatusProto;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * Answers failures as JSON error bodies. A failure is first mapped to its gRPC status by {@link
 * Errors#toStatus} (the same mapping the gRPC service uses), then that status to an HTTP status:
 *
 * <table>
 *   <caption>gRPC code to HTTP status</caption>
 *   <tr><th>gRPC code</th><th>HTTP</th></tr>
 *   <tr><td>INVALID_ARGUMENT, OUT_OF_RANGE</td><td>400</td></tr>
 *   <tr><td>UNAUTHENTICATED</td><td>401</td></tr>
 *   <tr><td>PERMISSION_DENIED</td><td>403</td></tr>
 *   <tr><td>NOT_FOUND</td><td>404</td></tr>
 *   <tr><td>ABORTED (version mismatch), ALREADY_EXISTS</td><td>409</td></tr>
 *   <tr><td>FAILED_PRECONDITION (uid of another incarnation)</td><td>412</td></tr>
 *   <tr><td>RESOURCE_EXHAUSTED marked {@link Errors#TOO_LARGE}</td><td>413</td></tr>
 *   <tr><td>RESOURCE_EXHAUSTED otherwise (rate limits)</td><td>429</td></tr>
 *   <tr><td>CANCELLED</td><td>499</td></tr>
 *   <tr><td>UNIMPLEMENTED</td><td>501</td></tr>
 *   <tr><td>UNAVAILABLE</td><td>503</td></tr>
 *   <tr><td>DEADLINE_EXCEEDED</td><td>504</td></tr>
 *   <tr><td>INTERNAL, UNKNOWN, DATA_LOSS</td><td>500</td></tr>
 * </table>
 *
 * <p>The body is {@code {"code": "INVALID_ARGUMENT", "message": "...", "field": "...",
 * "violations": [{"field": ..., "rule": ..., "description": ...}]}}: {@code field} is the path of
 * the first violation and is absent, like {@code violations}, when the status has none.
 */
final class JsonErrors {
  private JsonErrors() {}

  /** The response that answers {@code failure}. */
  static HttpResponse response(Throwable failure) {
    JsonError error = of(failure);
    return Json.response(error.status(), error.body());
  }

  /** The HTTP status and JSON body that answer {@code failure}. */
  static JsonError of(Throwable failure) {
    Throwable cause = unwrap(failure);
    if (cause instanceof HttpProblem problem) {
      return new JsonError(problem.status(), body(problem.code(), problem.getMessage()));
    }
    if (cause instanceof com.linecorp.armeria.common.CancellationException || cause instanceof ClosedStreamException
        || cause instanceof AbortedStreamException || cause instanceof CancelledSubscriptionException) {
      // The client went away, or Armeria has answered already (413 on Content-Length): nobody
      // reads this answer, and it is no server bug.
      return new JsonError(HttpStatus.valueOf(499), body(Status.Code.CANCELLED, "the request ended before it was answered"));
    }
    if (cause instanceof ContentTooLargeException) {
      return fromHttpStatus(HttpStatus.REQUEST_ENTITY_TOO_LARGE, cause, null);
    }
    if (cause instanceof HttpStatusException e) {
      return fromHttpStatus(e.httpStatus(), e.getCause(), null);
    }
    StatusRuntimeException sre = Errors.toStatus(cause);
    com.google.rpc.Status status = StatusProto.fromThrowable(sre);
    if (status == null) {
      String description = sre.getStatus().getDescription();
      status = com.google.rpc.Status.newBuilder()
          .setCode(sre.getStatus().getCode().value())
          .setMessage(description == null ? sre.getStatus().getCode().name() : description)
          .build();
    }
    ObjectNode body = body(Status.fromCodeValue(status.getCode()).getCode(), status.getMessage());
    ArrayNode violations = body.arrayNode();
    for (Any detail : status.getDetailsList()) {
      if (detail.is(BadRequest.class)) {
        for (BadRequest.FieldViolation v : unpack(detail, BadRequest.class).getFieldViolationsList()) {
          ObjectNode node = violations.addObject().put("field", v.getField());
          if (!v.getReason().isEmpty()) {
            node.put("rule", v.getReason());
          }
          node.put("description", v.getDescription());
        }
      }
    }
    if (!violations.isEmpty()) {
      body.put("field", violations.get(0).get("field").asText());
      body.set("violations", violations);
    }
    return new JsonError(httpStatus(status), body);
  }

  /**
   * Answers what fails before or around the gateway (a body over the limit rejected by its
   * Content-Length, a malformed request line) with the same JSON bodies.
   */
  static ServiceErrorHandler serviceErrorHandler() {
    return new ServiceErrorHandler() {
      @Override
      public HttpResponse onServiceException(ServiceRequestContext ctx, Throwable cause) {
        return response(cause);
      }

      @Override
      public AggregatedHttpResponse renderStatus(ServiceRequestContext ctx, RequestHeaders headers,
          HttpStatus status, String description, Throwable cause) {
        return aggregated(fromHttpStatus(status, cause, description));
      }
    };
  }

  /**
   * Answers what the HTTP layer refuses before any service (a path that does not decode, a URI or
   * headers over their limits, no such path, a body over the server's limit) with the same JSON
   * bodies as the gateway's own errors, instead of Armeria's plain text. Exceptions of services
   * other than the gateway keep Armeria's handling, which renders their status here too.
   */
  static ServerErrorHandler serverErrorHandler() {
    return new ServerErrorHandler() {
      @Override
      public HttpResponse onServiceException(ServiceRequestContext ctx, Throwable cause) {
        return null;
      }

      @Override
      public AggregatedHttpResponse onProtocolViolation(ServiceConfig config, RequestHeaders headers,
          HttpStatus status, String description, Throwable cause) {
        return aggregated(fromHttpStatus(status, cause, description));
      }

      @Override
      public AggregatedHttpResponse renderStatus(ServiceRequestContext ctx, ServiceConfig config,
          RequestHeaders headers, HttpStatus status, String description, Throwable cause) {
        return aggregated(fromHttpStatus(status, cause, description));
      }
    };
  }

  private static AggregatedHttpResponse aggregated(JsonError error) {
    return AggregatedHttpResponse.of(error.status(), MediaType.JSON_UTF_8, Json.write(error.body()) + "\n");
  }

  /** The answer to an HTTP status Armeria chose (413 for a body over the limit, and so on). */
  private static JsonError fromHttpStatus(HttpStatus status, Throwable cause, String description) {
    if (status == HttpStatus.REQUEST_ENTITY_TOO_LARGE || cause instanceof ContentTooLargeException) {
      long limit = cause instanceof ContentTooLargeException e ? e.maxContentLength() : -1;
      ServiceRequestContext ctx = ServiceRequestContext.currentOrNull();
      if (limit <= 0 && ctx != null) {
        limit = ctx.maxRequestLength();
      }
      return new JsonError(HttpStatus.REQUEST_ENTITY_TOO_LARGE, body(Status.Code.RESOURCE_EXHAUSTED,
          "request body: larger than the limit" + (limit > 0 ? " of " + limit + " bytes" : "")));
    }
    return new JsonError(status, body(code(status), description != null ? description : status.reasonPhrase()));
  }

  /** The gRPC code closest to an HTTP status the gateway did not choose itself. */
  private static Status.Code code(HttpStatus status) {
    return switch (status.code()) {
      case 400, 415 -> Status.Code.INVALID_ARGUMENT;
      case 401 -> Status.Code.UNAUTHENTICATED;
      case 403 -> Status.Code.PERMISSION_DENIED;
      case 404 -> Status.Code.NOT_FOUND;
      case 405, 501 -> Status.Code.UNIMPLEMENTED;
      case 408, 504 -> Status.Code.DEADLINE_EXCEEDED;
      case 409 -> Status.Code.ABORTED;
      case 412 -> Status.Code.FAILED_PRECONDITION;
      case 413, 429 -> Status.Code.RESOURCE_EXHAUSTED;
      case 503 -> Status.Code.UNAVAILABLE;
      default -> status.isClientError() ? Status.Code.INVALID_ARGUMENT : Status.Code.INTERNAL;
    };
  }

  /** The HTTP status of a gRPC status, per the table above. */
  static HttpStatus httpStatus(com.google.rpc.Status status) {
    return switch (Status.fromCodeValue(status.getCode()).getCode()) {
      case OK -> HttpStatus.OK;
      case INVALID_ARGUMENT, OUT_OF_RANGE -> HttpStatus.BAD_REQUEST;
      case UNAUTHENTICATED -> HttpStatus.UNAUTHORIZED;
      case PERMISSION_DENIED -> HttpStatus.FORBIDDEN;
      case NOT_FOUND -> HttpStatus.NOT_FOUND;
      case ABORTED, ALREADY_EXISTS -> HttpStatus.CONFLICT;
      case FAILED_PRECONDITION -> HttpStatus.PRECONDITION_FAILED;
      case RESOURCE_EXHAUSTED -> isTooLarge(status) ? HttpStatus.REQUEST_ENTITY_TOO_LARGE : HttpStatus.TOO_MANY_REQUESTS;
      case CANCELLED -> HttpStatus.valueOf(499);
      case UNIMPLEMENTED -> HttpStatus.NOT_IMPLEMENTED;
      case UNAVAILABLE -> HttpStatus.SERVICE_UNAVAILABLE;
      case DEADLINE_EXCEEDED -> HttpStatus.GATEWAY_TIMEOUT;
      case UNKNOWN, INTERNAL, DATA_LOSS -> HttpStatus.INTERNAL_SERVER_ERROR;
    };
  }

  private static boolean isTooLarge(com.google.rpc.Status status) {
    return status.getDetailsList().stream()
        .filter(d -> d.is(ErrorInfo.class))
        .map(d -> unpack(d, ErrorInfo.class))
        .anyMatch(info -> info.getDomain().equals(Errors.DOMAIN) && info.getReason().equals(Errors.TOO_LARGE));
  }

  private static ObjectNode body(Status.Code code, String message) {
    return Json.object().put("code", code.name()).put("message", Errors.bounded(message));
  }

  private static <T extends com.google.protobuf.Message> T unpack(Any any, Class<T> type) {
    try {
      return any.unpack(type);
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException("the server's own error details always decode", e);
    }
  }

  private static Throwable unwrap(Throwable failure) {
    Throwable t = failure;
    while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }

  /** An HTTP status and the JSON body that goes with it. */
  record JsonError(HttpStatus status, ObjectNode body) {}
}
