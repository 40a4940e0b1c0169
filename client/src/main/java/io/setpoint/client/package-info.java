/**
 * The Java client of a Setpoint server: {@link io.setpoint.client.SetpointClient} (blocking, with
 * {@link io.setpoint.client.AsyncSetpointClient} for futures), {@link
 * io.setpoint.client.SetpointException} for every failure, and {@link
 * io.setpoint.client.ResourceJson} for the JSON document form of resources.
 */
package io.setpoint.client;
