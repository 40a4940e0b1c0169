/**
 * The controller API of the agent: the controllers its manager runs, and reconciling a resource on
 * demand, over gRPC ({@link io.setpoint.server.controllers.ControllerGrpcService}) and HTTP.
 */
package io.setpoint.server.controllers;
