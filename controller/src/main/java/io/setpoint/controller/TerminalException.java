package io.setpoint.controller;

/**
 * Thrown by a reconciler for a failure that retrying cannot fix (invalid spec, permanent refusal):
 * the request is not retried until something changes. Other exceptions are retried with backoff.
 */
public class TerminalException extends Exception {
  public TerminalException(String message) {
    super(message);
  }

  public TerminalException(String message, Throwable cause) {
    super(message, cause);
  }
}
