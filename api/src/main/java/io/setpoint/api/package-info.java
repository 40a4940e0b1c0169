/**
 * Value helpers over the generated {@code setpoint.resource.v1} model ({@link io.setpoint.api.v1}):
 * {@link io.setpoint.api.Types}, {@link io.setpoint.api.Tenancies}, {@link io.setpoint.api.Ids}
 * (with references), {@link io.setpoint.api.Statuses} (with their conditions), {@link
 * io.setpoint.api.Resources} (with their finalizers) and {@link io.setpoint.api.Shards}; and what
 * the server and its clients must read alike: {@link io.setpoint.api.Leases}, and {@link
 * io.setpoint.api.Echo}'s bounds on the input an error message repeats.
 */
package io.setpoint.api;
