/**
 * The type registry: {@link io.setpoint.resource.Registration}s of resource types with their
 * admission hooks ({@link io.setpoint.resource.Hooks}) and ACL hooks ({@link
 * io.setpoint.resource.AclHooks}, with the {@code Authorizer} they ask about each {@code
 * Permission}), and the exceptions hooks throw and clients see: the structured {@link
 * io.setpoint.resource.ValidationException} (its {@code FieldViolation}s collected by {@link
 * io.setpoint.resource.Violations}), {@link io.setpoint.resource.PermissionDeniedException} and
 * {@link io.setpoint.resource.RefusedException}.
 */
package io.setpoint.resource;
