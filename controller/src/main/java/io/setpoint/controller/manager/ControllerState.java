package io.setpoint.controller.manager;

import io.setpoint.api.v1.Type;
import io.setpoint.controller.Placement;

/** A registered controller as the manager sees it now. */
public record ControllerState(String name, Type managedType, Placement placement, boolean running, int queueDepth) {}
