/**
 * The shared cache: one informer per type lists and watches the server, keeps its resources in
 * memory and tells each controller of the changes. Controllers read it through {@link
 * io.setpoint.controller.cache.Cache}, by id, by {@link io.setpoint.controller.cache.Index} or by
 * {@link io.setpoint.controller.cache.Query}; a change arrives as a {@link
 * io.setpoint.controller.cache.ResourceEvent}.
 */
package io.setpoint.controller.cache;
