/**
 * The demo: its types ({@link io.setpoint.demo.DemoTypes}: Artist, Album, RecordLabel,
 * Executive) and their controllers ({@link io.setpoint.demo.DemoControllers}), which {@code
 * setpoint agent -dev} serves and runs, and {@code setpoint demo controllers} runs in a process of
 * its own ({@code RemoteControllers}).
 */
package io.setpoint.demo;
