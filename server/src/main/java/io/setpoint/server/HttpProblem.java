package io.setpoint.server;

import com.linecorp.armeria.common.HttpStatus;
import io.grpc.Status;

/**
 * A failure only the HTTP face has (no such route, a method the route does not take, a body that
 * is not JSON): answered with {@code status}, and in the error body with the gRPC {@code code}
 * closest to it, so clients see one vocabulary of codes.
 */
final class HttpProblem extends RuntimeException {
  private final HttpStatus status;
  private final Status.Code code;

  HttpProblem(HttpStatus status, Status.Code code, String message) {
    super(message, null, false, false);
    this.status = status;
    this.code = code;
  }

  static HttpProblem notFound(String message) {
    return new HttpProblem(HttpStatus.NOT_FOUND, Status.Code.NOT_FOUND, message);
  }

  HttpStatus status() {
    return status;
  }

  Status.Code code() {
    return code;
  }
}
