/**
 * Time for the controller runtime: {@link io.setpoint.controller.time.Ticker}, the monotonic clock
 * every timer reads, and {@link io.setpoint.controller.time.ManualTicker}, the ticker tests move by
 * hand, with its wall clock ({@code ManualTicker.clock()}) for what reads the date.
 */
package io.setpoint.controller.time;
