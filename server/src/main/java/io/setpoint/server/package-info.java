/**
 * The Setpoint agent: {@link io.setpoint.server.Agent} starts a store, its gRPC and HTTP/JSON API,
 * access control and the controllers it runs. The agent's builder and its value types are the
 * public API; everything else here is package-private, wired by {@code AgentStartup}. A map, by
 * file name:
 *
 * <ul>
 *   <li><b>Agent</b>: {@code Agent} and its builder's options; {@code AgentStartup} wires the
 *       parts, {@code StoreOpener} opens the store (in memory, or a Raft member joining its
 *       cluster), {@code ApiServer} is the port (gRPC, gateway, web UI, connection limits, pipeline
 *       tuning, graceful stop), {@code HealthEndpoints} serves {@code /metrics}, {@code /healthz},
 *       {@code /livez} and {@code /readyz}, {@code InProcessApi} carries the agent's own
 *       controllers, and {@code AgentShutdown} is the stop sequence.
 *   <li><b>Resource service</b> (gRPC): {@code ResourceGrpcService} over {@code ResourceHandler},
 *       a facade over the jobs: {@code ResourceReads} (Read, List, ListByOwner, WatchList), {@code
 *       Admission} (mutate, validate, authorize), {@code WriteLoop} (writes with their CAS loop),
 *       planned by {@code WritePlanner} (a pure function), {@code StatusWrites}, {@code Deletions}
 *       (deletes and finalizers), {@code ReadsForWrite}, and {@code Disclosure} (what a caller may
 *       see of stored resources). Checked by {@code RequestValidator}, {@code Preconditions} and
 *       {@code Rules}; watches through {@code WatchStreamer}, {@code FilteredWatch} and {@code
 *       WatchLimiter}; errors mapped by {@code Errors} and {@code GrpcFailures}.
 *   <li><b>HTTP/JSON gateway</b>: {@code HttpGateway} picks the route, {@code HttpResourceRoutes}
 *       and {@code HttpControllerRoutes} answer it, reading the request with {@code HttpRequests}
 *       and {@code Query}; with {@code ProtoJson}, {@code Json}, {@code JsonErrors}, {@code
 *       SseWatch} and {@code ApiDocuments} (OpenAPI).
 *   <li><b>Access control</b>: {@code AccessControl}, {@code CallerAuthorizer}, {@code
 *       CallerResolver}, {@code AclView} (tokens and policies in memory), {@code Grants} (a
 *       compiled policy, with {@code TypePattern} and {@code TenancyPattern}), {@code
 *       ClientIdentity} and {@code IdentityIndex} (client certificates as tokens), {@code
 *       Secrets}, {@code AclGrpcService}; the ACL types in {@link io.setpoint.server.AclTypes}.
 *   <li><b>Types added at runtime</b>: {@code RuntimeTypes}, {@code TypeDefinitions}, {@code
 *       TypeSchemas}, {@code Compatibility}, {@code TypeSetCheck}.
 *   <li><b>Operator and controller APIs</b>: {@code OperatorGrpcService} (Raft peers, snapshots),
 *       {@code ControllerGrpcService} and {@code Controllers}.
 *   <li><b>Lifecycle</b>: {@code Cascade} (cascading deletes), {@code StoreMirror} (a store-backed
 *       view the ACLs read), {@code StoreLeadership} (SINGLETON controllers follow Raft).
 *   <li><b>Connections</b>: {@code ConnectionLimits}, {@code ConnectionLimiter}, {@code
 *       RequestRateLimiter}, {@code H2cPrefaceGate}, {@code ApiTls}.
 *   <li><b>Web UI</b>: {@code WebUi}, static files under {@code io/setpoint/server/ui}.
 *   <li><b>Plugins</b>: {@code Plugins} loads jars of {@link io.setpoint.server.plugin.SetpointPlugin}.
 * </ul>
 */
package io.setpoint.server;
