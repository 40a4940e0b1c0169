package io.setpoint.controller.source;

import java.util.function.Consumer;

/**
 * Events from outside the resource store (a timer, a message bus, a webhook) that trigger
 * reconciles. The controller starts it with a sink and closes it when the controller stops.
 *
 * @param <E> the event type; the controller maps each event to requests
 */
@FunctionalInterface
public interface Source<E> {
  /** Begins delivering events to {@code sink} (from any thread); returns a handle that stops it. */
  AutoCloseable start(Consumer<E> sink) throws Exception;
}
