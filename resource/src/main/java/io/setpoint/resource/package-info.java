/**
 * The type registry: {@link io.setpoint.resource.Registration}s of resource types with their
 * admission hooks ({@link io.setpoint.resource.Hooks}, {@link io.setpoint.resource.AclHooks}) and
 * the structured {@link io.setpoint.resource.ValidationException}s clients see.
 */
package io.setpoint.resource;
