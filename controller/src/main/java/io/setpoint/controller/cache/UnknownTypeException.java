package io.setpoint.controller.cache;

import io.setpoint.api.Types;
import io.setpoint.api.v1.Type;

/**
 * The server does not serve a type a controller needs. Retrying cannot help until the type is
 * registered there, so a manager fails the controller once with this message instead of retrying.
 */
public final class UnknownTypeException extends IllegalArgumentException {
  private final Type type;

  UnknownTypeException(Type type, String server) {
    super(Types.format(type) + " is not a type the server at " + server + " knows: register it there"
        + " (compile it into the server or apply its definition), then restart this controller's manager");
    this.type = type;
  }

  /** The type the server does not know. */
  public Type type() {
    return type;
  }
}
