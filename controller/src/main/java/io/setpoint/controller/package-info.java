/**
 * The controller runtime: reconciliation loops over Setpoint resources. A map, the way a newcomer
 * reads it:
 *
 * <ul>
 *   <li><b>What you write.</b> A {@link io.setpoint.controller.Controller} (built with {@code
 *       Controller.forType(TYPE)}): the managed type, what else it watches and how those changes
 *       map to its requests ({@link io.setpoint.controller.Mappers}, {@link
 *       io.setpoint.controller.Mappers.DependencyMapper}), filters, indexes, its {@link
 *       io.setpoint.controller.Controller.Placement}, concurrency and retry policy, and its {@link
 *       io.setpoint.controller.Reconciler} or {@link io.setpoint.controller.TypedReconciler} (with
 *       a {@link io.setpoint.controller.TypedReconciler.Cleaner} for finalization). A reconcile
 *       gets a {@link io.setpoint.controller.Request}, a {@link
 *       io.setpoint.controller.ReconcileContext} and {@link io.setpoint.controller.Tools} (client,
 *       cache, events, clock, and {@code createOrUpdate}), and returns a {@link
 *       io.setpoint.controller.Result}.
 *   <li><b>What runs it.</b> The {@link io.setpoint.controller.Manager}: one {@code SharedCache}
 *       (an {@code Informer} and a {@code TypeStore} per type), one {@code Supervisor} per
 *       controller, which restarts a {@code ControllerRunner} that fails. The manager keeps what is
 *       registered in a {@code ControllerRegistry}, builds supervisors, runners and tools with a
 *       {@code RunnerFactory}, and reports with {@code ManagerStatus}. The runner feeds the
 *       controller's work queue ({@code Deliveries}: events through mappers) and {@code Workers}
 *       run the reconciles ({@code WorkContext}, {@code ReadYourWrites}, {@code ReconcileTracing},
 *       {@code ControllerMetrics}, {@code ReconcileHistory}). {@code Faults} counts what failed
 *       outside a reconcile. All of it is package-private.
 *   <li><b>Where it runs.</b> The {@code Placer} starts and stops each controller as its placement
 *       says. SINGLETON controllers follow a {@link io.setpoint.controller.Leadership} ({@link
 *       io.setpoint.controller.LeaseElection} between processes); SHARDED ones split their keys in
 *       a {@link io.setpoint.controller.Sharding} group: a {@code ShardHeartbeat} keeps the member
 *       in it, {@code ShardHandover} moves its slots as the {@code ShardGroupView} changes, {@code
 *       ShardMembership} holds where it stands ({@code ShardRing}, {@code SlotGate}), {@code
 *       ShardCaches} shapes the cache to its slots, and {@code ShardLocker} splits a generic loop's
 *       keys the same way. The election's term and the shard heartbeat are both a {@code
 *       LeaseKeeper} (renewing on the ticker through {@code LeaseCalls}, timed by {@code
 *       LeaseTimings}).
 *   <li><b>Around it.</b> {@code queue}: the work queue (deduplication, backoff, priorities,
 *       fairness). {@code cache}: what reconcilers read of the shared cache, and its indexes.
 *       {@code loop}: generic loops over objects that are not resources, run by a {@link
 *       io.setpoint.controller.LoopRunner} or a manager. {@code predicate} and {@code source}:
 *       event filters and custom event sources. {@code time}: the injectable ticker, and a manual
 *       one for tests with its wall clock.
 * </ul>
 */
package io.setpoint.controller;
