package io.setpoint.controller;

import io.setpoint.api.v1.Type;
import io.setpoint.controller.Controller.Placement;
import java.util.Optional;

/**
 * A registered controller as the manager sees it now. {@code failure} says why it does not run
 * although it should: the error it is being restarted after (it failed to start, or failed while
 * running), with the backoff, or why it gave up (say, a type the server does not know). It is empty
 * while the controller runs, while it starts for the first time, and while it is not placed here.
 * {@code workers} is how many reconciles it runs at once; {@code reconciles} and {@code errors}
 * count the reconciles this manager ran since it started, and those that failed. {@code faults}
 * counts what failed outside reconciles since the manager started (a filter, mapper, source or
 * initializer that threw, a watch of its cache that broke unexpectedly, a failed start), and
 * {@code lastFault} says the last one: where, on what, the error and when.
 */
public record ControllerState(
    String name,
    Type managedType,
    Placement placement,
    boolean running,
    int queueDepth,
    Optional<String> failure,
    int workers,
    long reconciles,
    long errors,
    long faults,
    Optional<String> lastFault) {}
