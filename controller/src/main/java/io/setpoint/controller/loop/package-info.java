/**
 * Generic loops: reconciliation over objects that are not Setpoint resources (rows, files, cloud
 * objects). A {@link io.setpoint.controller.loop.Loop} lists and watches through a {@link
 * io.setpoint.controller.loop.ListerWatcher}, keeps what it saw in a {@link
 * io.setpoint.controller.loop.Store}, and hands each changed key to its {@link
 * io.setpoint.controller.loop.Handler}; a {@link io.setpoint.controller.loop.Locker} decides
 * which process handles a key (docs/generic-loops.md).
 */
package io.setpoint.controller.loop;
