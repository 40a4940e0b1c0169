/**
 * Time for the controller runtime: {@link io.setpoint.controller.time.Ticker}, the monotonic clock
 * every timer reads, {@link io.setpoint.controller.time.ManualTicker}, the ticker tests move by
 * hand, and {@link io.setpoint.controller.time.ManualClock}, its wall-clock counterpart.
 */
package io.setpoint.controller.time;
