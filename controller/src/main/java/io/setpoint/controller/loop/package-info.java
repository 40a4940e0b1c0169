/**
 * Generic loops: reconciliation over objects that are not Setpoint resources (rows, files, cloud
 * objects). A {@link io.setpoint.controller.loop.Loop} lists and watches keys through its {@link
 * io.setpoint.controller.loop.Loop.ListerWatcher}, reads each key's object from its {@link
 * io.setpoint.controller.loop.Loop.Store} right before handling it, and hands it to its {@link
 * io.setpoint.controller.loop.Loop.Handler}; a {@link io.setpoint.controller.loop.Locker} decides
 * which process handles a key (docs/generic-loops.md). The lockers themselves ({@code
 * InMemoryLocker}, and {@code LeaseLocker} with its {@code Heartbeat}) are package-private.
 */
package io.setpoint.controller.loop;
