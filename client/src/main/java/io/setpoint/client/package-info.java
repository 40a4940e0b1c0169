/**
 * The Java client of a Setpoint server: {@link io.setpoint.client.SetpointClient} (blocking, with
 * {@link io.setpoint.client.AsyncSetpointClient} for futures), {@link
 * io.setpoint.client.SetpointException} for every failure, and {@link
 * io.setpoint.client.ResourceJson} for the JSON document form of resources.
 *
 * <p>Inside, package-private: {@code ClientChannel} turns a builder's settings into the gRPC
 * channel ({@code HostPort} and {@code AgentAddresses} for the agents, {@code ClientTls}, {@code
 * CallRetries}, {@code ReconnectOnDemand}, {@code ClientTracing}), and {@code Rpc} makes the calls
 * on it.
 */
package io.setpoint.client;
