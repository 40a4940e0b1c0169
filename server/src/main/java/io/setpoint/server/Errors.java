package io.setpoint.server;

import com.google.rpc.BadRequest;
import com.google.rpc.Code;
import com.google.rpc.ErrorInfo;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.StatusProto;
import io.setpoint.api.Echo;
import io.setpoint.resource.PermissionDeniedException;
import io.setpoint.resource.RefusedException;
import io.setpoint.resource.ValidationException;
import io.setpoint.resource.ValidationException.FieldViolation;
import io.setpoint.storage.StorageException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Maps every failure of a request to the gRPC status the API documents. Anything unexpected is a
 * server bug: logged with its stack, answered {@code INTERNAL}.
 *
 * <p>Every status it makes is bounded: a description of at most {@value #MAX_DESCRIPTION}
 * characters (and {@value #MAX_DESCRIPTION_BYTES} bytes of UTF-8), field violations in the details
 * up to {@value #MAX_DETAILS_BYTES} bytes. gRPC sends them in a trailer, and clients refuse
 * trailers over 8 KiB (grpc-java's default), so an error that echoed a large request would reach
 * its caller as a broken stream instead of an answer.
 */
final class Errors {
  private static final Logger log = LoggerFactory.getLogger(Errors.class);

  /** The {@link ErrorInfo#getDomain() domain} of the error details this server attaches. */
  public static final String DOMAIN = "setpoint.io";
  /** The {@link ErrorInfo#getReason() reason} of a {@code RESOURCE_EXHAUSTED} that is about size. */
  public static final String TOO_LARGE = "TOO_LARGE";
  static final int MAX_DESCRIPTION = 1000;
  static final int MAX_DESCRIPTION_BYTES = 1500;
  static final int MAX_DETAILS_BYTES = 2000;

  private Errors() {}

  /** {@code failure} without the {@link CompletionException} a future wraps it in. */
  public static Throwable unwrapped(Throwable failure) {
    return failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
  }

  /** The status that answers {@code failure}. */
  public static StatusRuntimeException toStatus(Throwable failure) {
    if (failure instanceof StatusRuntimeException sre) {
      String description = sre.getStatus().getDescription();
      String bounded = description == null ? null : bounded(description);
      return description == null || bounded.equals(description)
          ? sre
          : sre.getStatus().withDescription(bounded).asRuntimeException(sre.getTrailers());
    }
    if (failure instanceof ValidationException invalid) {
      return invalidArgument(invalid);
    }
    if (failure instanceof RefusedException refused) {
      return failedPrecondition(refused.getMessage());
    }
    if (failure instanceof PermissionDeniedException denied) {
      return Status.PERMISSION_DENIED.withDescription(bounded(denied.getMessage())).asRuntimeException();
    }
    if (failure instanceof StorageException storage) {
      return fromStorage(storage);
    }
    log.error("request failed on a server bug", failure);
    return Status.INTERNAL
        .withDescription(bounded("internal error: " + failure.getClass().getSimpleName() + ": " + failure.getMessage()))
        .asRuntimeException();
  }

  private static StatusRuntimeException invalidArgument(ValidationException invalid) {
    BadRequest.Builder details = BadRequest.newBuilder();
    for (FieldViolation v : invalid.violations()) {
      BadRequest.FieldViolation detail = BadRequest.FieldViolation.newBuilder()
          .setField(v.field())
          .setReason(v.rule())
          .setDescription(v.message() + " (rule: " + v.rule() + ")")
          .build();
      // The first violation always goes in, the rest while they fit; the message names more.
      if (details.getFieldViolationsCount() > 0
          && details.build().getSerializedSize() + detail.getSerializedSize() > MAX_DETAILS_BYTES) {
        break;
      }
      details.addFieldViolations(detail);
    }
    com.google.rpc.Status status =
        com.google.rpc.Status.newBuilder()
            .setCode(Code.INVALID_ARGUMENT_VALUE)
            .setMessage(bounded(invalid.getMessage()))
            .addDetails(com.google.protobuf.Any.pack(details.build()))
            .build();
    return StatusProto.toStatusRuntimeException(status);
  }

  private static StatusRuntimeException fromStorage(StorageException e) {
    if (e.reason() == StorageException.Reason.BAD_PAGE_TOKEN) {
      // Only List takes a page token: name the field, as for any other invalid argument.
      return invalidArgument(ValidationException.of("page_token", "page-token", e.getMessage()));
    }
    if (e.reason() == StorageException.Reason.FUTURE_REVISION) {
      // Only WatchList resumes from a revision (the HTTP gateway names its Last-Event-ID instead).
      return invalidArgument(ValidationException.of("since_revision", "revision", e.getMessage()));
    }
    Status status =
        switch (e.reason()) {
          case NOT_FOUND -> Status.NOT_FOUND;
          case CAS_FAILURE -> Status.ABORTED;
          case WRONG_UID, FENCED -> Status.FAILED_PRECONDITION;
          case GROUP_VERSION_MISMATCH, BAD_PAGE_TOKEN, FUTURE_REVISION -> Status.INVALID_ARGUMENT;
          case COMPACTED -> Status.OUT_OF_RANGE;
          case WATCH_CLOSED, UNAVAILABLE -> Status.UNAVAILABLE;
          case RESOURCE_EXHAUSTED -> Status.RESOURCE_EXHAUSTED;
          // The write path decides these itself from a read: one reaching a caller is a bug here.
          case UNDECIDED -> Status.INTERNAL;
        };
    return status.withDescription(bounded(e.getMessage())).asRuntimeException();
  }

  /**
   * {@code description} cut to {@value #MAX_DESCRIPTION} characters, and further while its UTF-8
   * is over {@value #MAX_DESCRIPTION_BYTES} bytes.
   */
  public static String bounded(String description) {
    String out = Echo.bounded(description, MAX_DESCRIPTION);
    for (int max = MAX_DESCRIPTION / 2; utf8Length(out) > MAX_DESCRIPTION_BYTES; max /= 2) {
      out = Echo.bounded(description, max);
    }
    return out;
  }

  private static int utf8Length(String text) {
    return text.getBytes(StandardCharsets.UTF_8).length;
  }

  static StatusRuntimeException notFound(String message) {
    return Status.NOT_FOUND.withDescription(bounded(message)).asRuntimeException();
  }

  static StatusRuntimeException aborted(String message) {
    return Status.ABORTED.withDescription(bounded(message)).asRuntimeException();
  }

  static StatusRuntimeException alreadyExists(String message) {
    return Status.ALREADY_EXISTS.withDescription(bounded(message)).asRuntimeException();
  }

  static StatusRuntimeException failedPrecondition(String message) {
    return Status.FAILED_PRECONDITION.withDescription(bounded(message)).asRuntimeException();
  }

  /**
   * {@code RESOURCE_EXHAUSTED} for a request or resource over a size limit, marked with an {@link
   * ErrorInfo} of reason {@link #TOO_LARGE} so that transports can tell it from a rate limit (the
   * HTTP gateway answers 413 instead of 429).
   */
  static StatusRuntimeException tooLarge(String message) {
    com.google.rpc.Status status =
        com.google.rpc.Status.newBuilder()
            .setCode(Code.RESOURCE_EXHAUSTED_VALUE)
            .setMessage(bounded(message))
            .addDetails(com.google.protobuf.Any.pack(
                ErrorInfo.newBuilder().setDomain(DOMAIN).setReason(TOO_LARGE).build()))
            .build();
    return StatusProto.toStatusRuntimeException(status);
  }
}
