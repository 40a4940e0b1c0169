/**
 * Not API: what the controller runtime's engine reads from a {@link io.setpoint.controller.Controller}.
 * Public only because the engine lives in other packages; anything here may change in any release.
 */
package io.setpoint.controller.internal;
