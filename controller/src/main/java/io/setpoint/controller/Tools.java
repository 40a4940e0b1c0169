package io.setpoint.controller;

import io.setpoint.client.SetpointClient;
import io.setpoint.controller.cache.Cache;
import java.time.Clock;
import org.slf4j.Logger;

/** What a reconciler works with. */
public interface Tools {
  /** The resource service, in-process or remote; the same API either way. */
  SetpointClient client();

  /** The shared, watch-fed cache of every type the controller watches, with its indexes. */
  Cache cache();

  /** A logger whose MDC carries the controller name and, during a reconcile, the resource id. */
  Logger logger();

  /** Records events about resources (as {@code core.v1.Event} resources). */
  EventRecorder events();

  /** The wall clock (a controllable one in tests). */
  Clock clock();
}
