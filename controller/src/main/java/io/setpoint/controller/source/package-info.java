/**
 * Custom event sources for resource controllers: a {@link io.setpoint.controller.source.Source}
 * delivers events from outside the store (a timer, a message bus, another system's watch) that a
 * mapper turns into requests of the controller's managed type.
 */
package io.setpoint.controller.source;
