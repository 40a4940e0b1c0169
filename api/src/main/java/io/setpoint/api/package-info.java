/**
 * Value helpers over the generated {@code setpoint.resource.v1} model ({@link io.setpoint.api.v1}):
 * types, tenancies, ids, references and status equality.
 */
package io.setpoint.api;
