/**
 * The fault-injection suite ({@code setpoint bench chaos}): durable members as separate processes,
 * clients and watchers on every member over the public API, faults injected one phase at a time,
 * then checks of what the clients and watchers saw (linearizability per key, watch guarantees,
 * convergence, liveness). {@link io.setpoint.loadgen.chaos.ChaosRun} is the entry point.
 */
package io.setpoint.loadgen.chaos;
