/**
 * The indexed multi-version store shared by backends: {@link
 * io.setpoint.storage.engine.ResourceIndex} (deterministic CAS, version chains, owner index,
 * history) and {@link io.setpoint.storage.engine.WatchHub} (ordered fan-out). For backend
 * implementors; applications use {@link io.setpoint.storage.Backend}.
 */
package io.setpoint.storage.engine;
