package io.setpoint.controller.manager;

import io.setpoint.client.SetpointClient;
import io.setpoint.controller.EventRecorder;
import io.setpoint.controller.Runtime;
import io.setpoint.controller.cache.Cache;
import java.time.Clock;
import org.slf4j.Logger;

/** The {@link Runtime} a manager hands its controllers. */
record ControllerRuntime(SetpointClient client, Cache cache, Logger logger, EventRecorder events, Clock clock)
    implements Runtime {
  /** The same runtime, writing through {@code writer}. */
  ControllerRuntime writingThrough(SetpointClient writer) {
    return new ControllerRuntime(writer, cache, logger, events, clock);
  }
}
