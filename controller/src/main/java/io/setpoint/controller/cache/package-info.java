/**
 * What a controller reads of the shared cache: {@link io.setpoint.controller.cache.Cache}, by id,
 * by {@link io.setpoint.controller.cache.Index} (keys from {@code Index.keyOf}) or by a named
 * {@link io.setpoint.controller.cache.Cache.Query}; a change arrives as a {@link
 * io.setpoint.controller.cache.ResourceEvent}.
 *
 * <p>The cache itself is the manager's, package-private in {@code io.setpoint.controller}: a
 * {@code SharedCache} keeps a {@code TypeStore} and an {@code Informer} per type. The informer's
 * thread lists and follows the watch; its {@code StoreWriter} applies each change to the store
 * before the listeners hear of it, and its {@code InformerProgress} is what other threads restrict
 * and wait on (ranges held, revision reached).
 */
package io.setpoint.controller.cache;
