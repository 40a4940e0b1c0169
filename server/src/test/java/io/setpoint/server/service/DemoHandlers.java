package io.setpoint.server.service;

import io.setpoint.demo.DemoTypes;
import io.setpoint.resource.CoreTypes;
import io.setpoint.resource.Registry;
import io.setpoint.storage.Backend;
import java.time.Clock;

/** Resource handlers over a test's store, with the core and demo types registered. */
final class DemoHandlers {
  private DemoHandlers() {}

  /** A handler of the core and demo types over {@code store}, with default limits. */
  static ResourceHandler over(Backend store) {
    Registry registry = new Registry();
    CoreTypes.register(registry);
    DemoTypes.register(registry);
    return new ResourceHandler(registry, store, Clock.systemUTC(), ServiceLimits.DEFAULT);
  }
}
