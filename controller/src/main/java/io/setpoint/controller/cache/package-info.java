/**
 * The shared cache: one informer per type lists and watches the server, keeps its resources in
 * memory and tells each controller of the changes. Controllers read it through {@link
 * io.setpoint.controller.cache.Cache}, by id, by {@link io.setpoint.controller.cache.Index} or by
 * {@link io.setpoint.controller.cache.Query}; a change arrives as a {@link
 * io.setpoint.controller.cache.ResourceEvent}.
 *
 * <p>{@link io.setpoint.controller.cache.SharedCache} keeps, package-private, a {@code TypeStore}
 * and an {@code Informer} per type. The informer's thread lists and follows the watch; its {@code
 * StoreWriter} applies each change to the store before the listeners hear of it, and its {@code
 * InformerProgress} is what other threads restrict and wait on (ranges held, revision reached).
 */
package io.setpoint.controller.cache;
