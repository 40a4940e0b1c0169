package io.setpoint.controller;

import io.setpoint.api.Types;
import io.setpoint.api.v1.Type;

/**
 * The server does not serve a type a controller needs. Retrying cannot help until the type is
 * registered there, so the {@link Supervisor} fails the controller once with this message instead
 * of retrying.
 */
final class UnknownTypeException extends IllegalArgumentException {
  UnknownTypeException(Type type, String server) {
    super(Types.format(type) + " is not a type the server at " + server + " knows: register it there"
        + " (compile it into the server or apply its definition), then restart this controller's manager");
  }
}
