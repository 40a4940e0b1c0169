/**
 * Time for the controller runtime: {@link io.setpoint.controller.time.Ticker}, the monotonic clock
 * every timer reads, and {@link io.setpoint.controller.time.ManualTicker}, the clock tests move by
 * hand.
 */
package io.setpoint.controller.time;
