package io.setpoint.controller.manager;

import io.setpoint.api.v1.Type;
import io.setpoint.controller.Placement;
import java.util.Optional;

/**
 * A registered controller as the manager sees it now. {@code failure} says why it gave up starting
 * (say, a type the server does not know); it is empty while the controller runs or is retried.
 */
public record ControllerState(
    String name, Type managedType, Placement placement, boolean running, int queueDepth, Optional<String> failure) {}
