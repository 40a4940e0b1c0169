package io.setpoint.client;

import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.rpc.BadRequest;
import io.grpc.Status;
import io.grpc.protobuf.StatusProto;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A call to the server failed. Carries the gRPC {@linkplain #code() code}, the server's
 * {@linkplain #description() message} and, for {@code INVALID_ARGUMENT}, the {@linkplain
 * #violations() field violations} the server attached.
 *
 * <p>When the server could not be reached at all the code is {@code UNAVAILABLE} (or {@code
 * DEADLINE_EXCEEDED}) and the description names the address and the transport's reason.
 */
public final class SetpointException extends RuntimeException {
  /** The gRPC status code. */
  private final Status.Code code;
  /** The server's message. */
  private final String description;
  /** The rejected fields, possibly none. */
  private final List<FieldViolation> violations;

  /**
   * One field the server rejected, from the {@code com.google.rpc.BadRequest} details of the
   * status.
   *
   * @param field the path of the field in the request, e.g. {@code resource.data.name}
   * @param description what is wrong with it and the rule it broke
   */
  public record FieldViolation(String field, String description) implements Serializable {
    /** Both parts are required. */
    public FieldViolation {
      Objects.requireNonNull(field, "field");
      Objects.requireNonNull(description, "description");
    }

    @Override
    public String toString() {
      return field + ": " + description;
    }
  }

  SetpointException(Status.Code code, String description, List<FieldViolation> violations, Throwable cause) {
    super(code + ": " + description, cause);
    this.code = code;
    this.description = description;
    this.violations = List.copyOf(violations);
  }

  /** A copy whose stack trace is the caller's, for rethrowing in the calling thread. */
  SetpointException(SetpointException original) {
    this(original.code, original.description, original.violations, original);
  }

  /**
   * The gRPC status code of the failure. The common cases have predicates ({@link #isNotFound()},
   * {@link #isAlreadyExists()}, {@link #isConflict()}, {@link #isRetryable()}), so code that only
   * tells those apart need not import gRPC.
   */
  public Status.Code code() {
    return code;
  }

  /** Nothing is stored under the id asked for ({@code NOT_FOUND}). */
  public boolean isNotFound() {
    return code == Status.Code.NOT_FOUND;
  }

  /** A create-only write found the name taken ({@code ALREADY_EXISTS}). */
  public boolean isAlreadyExists() {
    return code == Status.Code.ALREADY_EXISTS;
  }

  /**
   * The stored version moved on ({@code ABORTED}: a compare-and-swap lost, or a blind write lost
   * too many races): read again and retry.
   */
  public boolean isConflict() {
    return code == Status.Code.ABORTED;
  }

  /**
   * The server could not answer now ({@code UNAVAILABLE}: no leader, shutting down, a watch
   * closed; or {@code DEADLINE_EXCEEDED}): the same call may succeed later.
   */
  public boolean isRetryable() {
    return code == Status.Code.UNAVAILABLE || code == Status.Code.DEADLINE_EXCEEDED;
  }

  /** The server's message (or, when the server was not reached, why not). */
  public String description() {
    return description;
  }

  /** The fields the server rejected; empty unless the server attached them. */
  public List<FieldViolation> violations() {
    return violations;
  }

  /**
   * Converts any failure of a call to {@code address} into a {@code SetpointException}.
   * {@code failure} is usually a {@link io.grpc.StatusRuntimeException}.
   */
  static SetpointException from(Throwable failure, String address) {
    if (failure instanceof SetpointException e) {
      return e;
    }
    Status status = Status.fromThrowable(failure);
    String description = status.getDescription();
    if (status.getCode() == Status.Code.UNAVAILABLE && status.getCause() != null) {
      // Connection-level failure: the server never answered, so say where we tried to go.
      description = "cannot reach the Setpoint server at " + address + ": " + rootMessage(status.getCause());
    } else if (status.getCode() == Status.Code.UNAVAILABLE && "Network closed for unknown reason".equals(description)) {
      // What a plaintext client sees when the server only speaks TLS: the server drops the
      // connection without a word.
      description = "cannot reach the Setpoint server at " + address + ": the connection was closed without an answer"
          + " (if the agent serves TLS, connect with TLS: an https:// address or a CA file, -ca-file)";
    } else if (status.getCode() == Status.Code.DEADLINE_EXCEEDED) {
      description = "no answer from the Setpoint server at " + address + " in time"
          + (description == null ? "" : " (" + description + ")");
    } else if (description == null || description.isEmpty()) {
      description = status.getCause() != null ? rootMessage(status.getCause()) : status.getCode().toString();
    }
    return new SetpointException(status.getCode(), description, violations(failure), failure);
  }

  private static List<FieldViolation> violations(Throwable failure) {
    com.google.rpc.Status details = StatusProto.fromThrowable(failure);
    if (details == null) {
      return List.of();
    }
    List<FieldViolation> out = new ArrayList<>();
    for (Any detail : details.getDetailsList()) {
      if (!detail.is(BadRequest.class)) {
        continue;
      }
      try {
        for (BadRequest.FieldViolation v : detail.unpack(BadRequest.class).getFieldViolationsList()) {
          out.add(new FieldViolation(v.getField(), v.getDescription()));
        }
      } catch (InvalidProtocolBufferException e) {
        // A malformed detail is not worth hiding the error itself; the description still says it.
      }
    }
    return out;
  }

  private static String rootMessage(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String message = root.getMessage();
    return message == null ? root.getClass().getSimpleName() : message;
  }
}
