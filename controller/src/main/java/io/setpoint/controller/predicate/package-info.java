/**
 * Event filters for controllers: {@link io.setpoint.controller.predicate.Predicates} over {@link
 * io.setpoint.controller.cache.ResourceEvent}s (generation, metadata or status changed, a label
 * selector), plain {@code java.util.function.Predicate}s to combine as any others.
 */
package io.setpoint.controller.predicate;
