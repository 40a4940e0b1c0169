/**
 * The Setpoint agent: {@link io.setpoint.server.Agent} starts a store, its gRPC and HTTP/JSON API,
 * access control and the controllers it runs. The agent's builder and its value types are the
 * public API; everything else here is package-private, wired by {@code Agent}. A map, by file name:
 *
 * <ul>
 *   <li><b>Resource service</b> (gRPC): {@code ResourceGrpcService} over {@code ResourceHandler}
 *       (reads, writes with their CAS loop, status, lists, deletes and finalizers), checked by
 *       {@code RequestValidator}, {@code Preconditions} and {@code Rules}; watches through {@code
 *       WatchStreamer}, {@code FilteredWatch} and {@code WatchLimiter}; errors mapped by {@code
 *       Errors} and {@code GrpcFailures}.
 *   <li><b>HTTP/JSON gateway</b>: {@code HttpGateway}, with {@code ProtoJson}, {@code Json}, {@code
 *       JsonErrors}, {@code SseWatch} and {@code ApiDocuments} (OpenAPI).
 *   <li><b>Access control</b>: {@code AccessControl}, {@code CallerAuthorizer}, {@code
 *       CallerResolver}, {@code Grants}, {@code Secrets}, {@code AclGrpcService}; the ACL types in
 *       {@link io.setpoint.server.AclTypes}.
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
