package io.setpoint.controller;

import io.setpoint.client.SetpointClient;
import io.setpoint.controller.Tools.EventRecorder;
import io.setpoint.controller.cache.Cache;
import java.time.Clock;
import org.slf4j.Logger;

/** The {@link Tools} a manager hands its controllers. */
record ControllerTools(SetpointClient client, Cache cache, Logger logger, EventRecorder events, Clock clock)
    implements Tools {
  /** The same tools, writing through {@code writer}. */
  ControllerTools writingThrough(SetpointClient writer) {
    return new ControllerTools(writer, cache, logger, events, clock);
  }
}
