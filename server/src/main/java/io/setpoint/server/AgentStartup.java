package io.setpoint.server;

import com.linecorp.armeria.common.CommonPools;
import com.linecorp.armeria.server.grpc.GrpcService;
import io.grpc.BindableService;
import io.grpc.ServerInterceptor;
import io.grpc.protobuf.services.ProtoReflectionServiceV1;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.opentelemetry.api.OpenTelemetry;
import io.setpoint.api.tls.TlsFiles;
import io.setpoint.client.SetpointClient;
import io.setpoint.controller.Leadership;
import io.setpoint.controller.Manager;
import io.setpoint.controller.Sharding;
import io.setpoint.resource.CoreTypes;
import io.setpoint.resource.Registry;
import io.setpoint.server.plugin.SetpointPlugin;
import io.setpoint.storage.Backend;
import io.setpoint.storage.Replication;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts an agent from its builder's options, wiring the parts in order: the types and plugins,
 * the store, the resource service and access control, the API server and its in-process twin,
 * then the controllers. Whatever a step opens goes into a {@link Closer}, so a failed start leaks
 * nothing.
 */
final class AgentStartup {
  /** The agent's log, whose name operators configure and read. */
  private static final Logger log = LoggerFactory.getLogger(Agent.class);
  private static final Duration TYPE_SYNC_TIMEOUT = Duration.ofSeconds(30);

  private final Agent.Builder options;

  AgentStartup(Agent.Builder options) {
    this.options = options;
  }

  /** The steps of {@link Agent.Builder#start()}; whatever it opens goes into {@code opened}. */
  Agent start(Closer opened) {
    TlsFiles.Loaded tlsMaterial = options.tls == null ? null : options.tls.load();
    Registry registry = new Registry();
    CoreTypes.register(registry);
    AclTypes.register(registry);
    options.types.accept(registry);
    List<SetpointPlugin> plugins = loadPlugins(registry);
    Backend store = options.backend != null
        ? options.backend
        : opened.add(StoreOpener.open(options.raft, options.joiner, options.storeLimits));
    Replication replication = store instanceof Replication r ? r : null;
    TypeSetCheck.check(registry, store, options.replaceTypeSet, TYPE_SYNC_TIMEOUT);
    // Types defined at runtime are served from the first request on, as they were before a restart.
    RuntimeTypes runtimeTypes = opened.add(RuntimeTypes.start(registry, store, TYPE_SYNC_TIMEOUT));
    PrometheusMeterRegistry meters = AgentMeters.create(opened);
    ResourceHandler handler = new ResourceHandler(registry, store, options.clock, options.limits, meters);
    if (replication != null) {
      AgentMeters.raft(meters, replication);
    }
    OpenTelemetry tracing = options.openTelemetry != null ? options.openTelemetry
        : AgentTracing.requested(System.getenv()) ? opened.add(AgentTracing.fromEnvironment(System.getenv())) : null;
    WriteTraces traces = tracing == null ? null : new WriteTraces();
    WatchStreamer streamer = new WatchStreamer(meters, store::revision, traces);
    ResourceGrpcService resources =
        new ResourceGrpcService(handler, streamer, CommonPools.blockingTaskExecutor(), traces);
    AccessControl access = opened.add(options.acls
        ? AccessControl.enabled(store, handler, options.clock)
        : AccessControl.disabled(store, handler, options.clock));
    // The manager is built once the in-process channel it talks through exists, after the server.
    AtomicReference<Manager> startedManager = new AtomicReference<>();
    Controllers controllerApi = new Controllers(startedManager::get, handler);
    HealthEndpoints health = new HealthEndpoints(
        meters, options.metricsAcl ? access.httpCallers() : null, store, replication, startedManager::get);
    ClusterReport cluster = new ClusterReport(replication, options.raft == null ? null : options.raft.dataDir(),
        health::readiness);
    MeterHistory history =
        opened.add(new MeterHistory(meters, options.ticker, options.clock, options.meterSampleInterval).start());
    HttpGateway gateway = new HttpGateway(registry, handler, streamer, controllerApi, cluster, history,
        access.httpCallers(), options.maxRequestBytes);
    TypeGrpcService typeService = new TypeGrpcService(registry);
    BindableService[] services = {resources, typeService,
        new OperatorGrpcService(store, replication, options.clock, cluster),
        new ControllerGrpcService(controllerApi), access.service(), ProtoReflectionServiceV1.newInstance()};
    GrpcService grpc = ApiServer.grpc(services,
        tracing == null
            ? new ServerInterceptor[] {access.grpcCallers()}
            : new ServerInterceptor[] {access.grpcCallers(), new ServerTracing(tracing)},
        options.maxRequestBytes);
    ApiServer server = ApiServer.start(options, tlsMaterial, meters, access, grpc, gateway, health, opened);
    InProcessApi inProcess = InProcessApi.start(resources, typeService, tracing, opened);
    Manager manager = opened.add(manager(inProcess.client(), replication, meters, tracing));
    startedManager.set(manager);
    manager.register(Cascade.controller());
    options.controllers.accept(manager);
    for (SetpointPlugin plugin : plugins) {
      plugin.controllers(manager);
      log.info("plugin {} loaded", plugin.name());
    }
    Agent agent = new Agent(server, registry, manager, inProcess.client(),
        new AgentShutdown(manager, access, runtimeTypes, store, server, inProcess, history));
    log.info("Setpoint agent listening on {}:{} (gRPC, HTTP/JSON under /api){}", options.host, agent.port(),
        tlsMaterial == null ? "" : !options.tls.mutual() ? " over TLS"
            : options.clientCertificatesOptional ? " over TLS, client certificates optional" : " over mutual TLS");
    log.info("At most {} client connections, {} per client address; idle ones close after {} ms",
        server.connectionLimits().total(), server.connectionLimits().perClient(), options.idleTimeout.toMillis());
    if (options.clientRate > 0) {
      log.info("At most {} API requests per second per client, {} at once", options.clientRate, options.clientBurst);
    }
    manager.start();
    health.started();
    return agent;
  }

  /** The manager of the agent's controllers, talking to the agent through {@code local}. */
  private Manager manager(SetpointClient local, Replication replication, PrometheusMeterRegistry meters,
      OpenTelemetry tracing) {
    Manager.Builder managerBuilder = Manager.builder()
        .leadership(replication == null ? Leadership.always() : new StoreLeadership(replication))
        .client(local)
        .clock(options.clock)
        .ticker(options.ticker)
        .meterRegistry(meters);
    if (tracing != null) {
      managerBuilder.openTelemetry(tracing);
    }
    if (options.shardGroup != null) {
      managerBuilder.sharding(shardMember());
    }
    return managerBuilder.build();
  }

  private Sharding.Builder shardMember() {
    Sharding.Builder group = Sharding.named(options.shardGroup);
    if (options.raft == null) {
      return group;
    }
    try {
      return group.member(options.raft.nodeName());
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException("-shard-group: the node name " + options.raft.nodeName()
          + " names this agent's member of the shard group, and " + e.getMessage(), e);
    }
  }

  /** The plugins of {@link Agent.Builder#plugins}, their types registered. */
  private List<SetpointPlugin> loadPlugins(Registry registry) {
    if (options.pluginDir == null) {
      return List.of();
    }
    try {
      List<SetpointPlugin> plugins = Plugins.load(options.pluginDir);
      for (SetpointPlugin plugin : plugins) {
        registerTypes(plugin, registry);
      }
      return plugins;
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
  }

  private static void registerTypes(SetpointPlugin plugin, Registry registry) {
    try {
      plugin.types(registry);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("plugin " + plugin.name() + " failed to register its types: " + e.getMessage(), e);
    }
  }
}
