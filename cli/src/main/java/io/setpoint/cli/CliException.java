package io.setpoint.cli;

/** A failure of a command that is not the server's: an unreadable file, a malformed document. */
final class CliException extends RuntimeException {
  CliException(String message) {
    super(message);
  }

  CliException(String message, Throwable cause) {
    super(message, cause);
  }
}
