/**
 * The plugin interface: types with Java hooks and controllers, packaged in a jar and loaded by the
 * standalone agent (docs/plugins.md). A package of its own, so that a plugin's {@code
 * META-INF/services} file names a type that does not move with the agent's insides.
 */
package io.setpoint.server.plugin;
