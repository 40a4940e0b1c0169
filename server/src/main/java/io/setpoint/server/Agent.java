package io.setpoint.server;

import com.linecorp.armeria.common.CommonPools;
import com.linecorp.armeria.common.HttpRequest;
import com.linecorp.armeria.common.HttpResponse;
import com.linecorp.armeria.common.HttpStatus;
import com.linecorp.armeria.common.MediaType;
import com.linecorp.armeria.common.grpc.GrpcSerializationFormats;
import com.linecorp.armeria.server.Server;
import com.linecorp.armeria.server.ServerBuilder;
import com.linecorp.armeria.server.grpc.GrpcService;
import io.grpc.BindableService;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.StatusRuntimeException;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.protobuf.services.ProtoReflectionServiceV1;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.handler.flush.FlushConsolidationHandler;
import io.opentelemetry.api.OpenTelemetry;
import io.setpoint.api.tls.TlsFiles;
import io.setpoint.api.v1.Tenancy;
import io.setpoint.api.v1.Type;
import io.setpoint.client.ClientTracing;
import io.setpoint.client.SetpointClient;
import io.setpoint.controller.Leadership;
import io.setpoint.controller.Manager;
import io.setpoint.controller.Sharding;
import io.setpoint.controller.time.Ticker;
import io.setpoint.resource.CoreTypes;
import io.setpoint.resource.Permission;
import io.setpoint.resource.PermissionDeniedException;
import io.setpoint.resource.Registry;
import io.setpoint.server.plugin.SetpointPlugin;
import io.setpoint.storage.Backend;
import io.setpoint.storage.Health;
import io.setpoint.storage.Replication;
import io.setpoint.storage.StorageException;
import io.setpoint.storage.engine.Limits;
import io.setpoint.storage.memory.MemoryBackend;
import io.setpoint.storage.raft.RaftBackend;
import io.setpoint.storage.raft.RaftConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running Setpoint server: on one port the resource service (gRPC, with server reflection), its
 * HTTP/JSON gateway under {@code /api}, {@code /metrics} (Prometheus), {@code /healthz} and {@code
 * /readyz}; over a storage backend, with the types its builder registered and a {@link Manager}
 * running its controllers in-process.
 *
 * <pre>{@code
 * try (Agent agent = Agent.builder().port(0).types(DemoTypes::register).start()) {
 *   int port = agent.port();
 *   ...
 * }
 * }</pre>
 */
public final class Agent implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Agent.class);
  /** How long stopping waits for the server's port to close. */
  private static final Duration STOP_TIMEOUT = Duration.ofSeconds(10);
  private static final Duration PORT_POLL = Duration.ofMillis(2);
  /** How long a stopping leader waits for another member to take over. */
  private static final Duration HANDOVER_TIMEOUT = Duration.ofSeconds(3);
  /** How long a stopping server waits for requests to stop coming before it closes its connections. */
  private static final Duration STOP_QUIET_PERIOD = Duration.ofMillis(20);
  /** How long an upgraded HTTP/2 connection's first response waits for the client's preface at most. */
  private static final Duration H2C_PREFACE_WAIT = Duration.ofSeconds(5);
  /** How long stopping waits for the server's I/O threads to end once every connection is closed. */
  private static final Duration EVENT_LOOPS_TIMEOUT = Duration.ofSeconds(1);

  private final Server server;
  private final ServerThreads threads;
  private final io.grpc.Server inProcess;
  private final Backend backend;
  private final Registry registry;
  private final Manager manager;
  private final SetpointClient local;
  private final AccessControl access;
  private final RuntimeTypes runtimeTypes;
  /** Set when {@link #close()} begins: the server then sends its clients away. */
  private final AtomicBoolean stopping;
  private final Http1Connections http1;
  private final Http2Connections http2;
  private final CountDownLatch stopped = new CountDownLatch(1);

  private Agent(
      Server server,
      ServerThreads threads,
      io.grpc.Server inProcess,
      Backend backend,
      Registry registry,
      Manager manager,
      SetpointClient local,
      AccessControl access,
      RuntimeTypes runtimeTypes,
      AtomicBoolean stopping,
      Http1Connections http1,
      Http2Connections http2) {
    this.server = server;
    this.threads = threads;
    this.inProcess = inProcess;
    this.backend = backend;
    this.registry = registry;
    this.manager = manager;
    this.local = local;
    this.access = access;
    this.runtimeTypes = runtimeTypes;
    this.stopping = stopping;
    this.http1 = http1;
    this.http2 = http2;
  }

  /** Starts configuring an agent. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * A client for code running in this process (an application embedding the agent, a benchmark):
   * it reaches the services over the in-process transport, without sockets, and acts with the
   * agent's own identity, like the agent's controllers. Closed with the agent.
   */
  public SetpointClient client() {
    return local;
  }

  /** The port the agent listens on (useful after asking for port 0). */
  public int port() {
    return server.activeLocalPort();
  }

  /** The types this agent serves. */
  public Registry registry() {
    return registry;
  }

  /** The manager running this agent's controllers (over an in-process channel). */
  public Manager manager() {
    return manager;
  }

  /** Blocks until {@link #close()} has finished. */
  public void awaitTermination() throws InterruptedException {
    stopped.await();
  }

  /**
   * Stops gracefully, then closes the store. Idempotent. A member that leads hands leadership to
   * another first; the server then closes its port and tells each client connection to go away
   * once its requests are answered (its clients move to another agent), open watches end so their
   * clients watch elsewhere, and the requests in progress finish (for up to five seconds) before
   * the store closes.
   */
  @Override
  public void close() {
    if (stopped.getCount() == 0) {
      return;
    }
    synchronized (this) {
      if (stopped.getCount() == 0) {
        return;
      }
      // Each step timed for the last line: a stop that takes seconds says which step took them.
      long start = System.nanoTime();
      manager.close();
      access.close();
      runtimeTypes.close();
      long controllersClosed = System.nanoTime();
      handOverLeadership();
      long handedOver = System.nanoTime();
      stopping.set(true);
      CompletableFuture<Void> serverStopped = server.stop();
      http1.closeIdle();
      http2.drain();
      backend.closeWatches("this agent is stopping: watch again, on another member");
      awaitClosed(serverStopped);
      long connectionsClosed = System.nanoTime();
      backend.close();
      local.close();
      inProcess.shutdownNow();
      long storeClosed = System.nanoTime();
      stopEventLoops();
      long end = System.nanoTime();
      log.info("Setpoint agent stopped in {} (controllers {}, leadership hand-over {}, connections {}, store {}, I/O threads {})",
          seconds(end - start), seconds(controllersClosed - start), seconds(handedOver - controllersClosed),
          seconds(connectionsClosed - handedOver), seconds(storeClosed - connectionsClosed), seconds(end - storeClosed));
      stopped.countDown();
    }
  }

  /**
   * When this member leads a cluster with another member in reach, moves leadership there, so the
   * writes of the other members pause for a transfer rather than an election timeout.
   */
  private void handOverLeadership() {
    if (!(backend instanceof Replication replication) || !replication.isLeader()) {
      return;
    }
    try {
      if (replication.members().stream().anyMatch(m -> !m.leader() && !m.unreachable() && m.lastContact().isPresent())) {
        log.info("handing leadership over before stopping: {} leads now", replication.transferLeadership("", HANDOVER_TIMEOUT));
      }
    } catch (RuntimeException e) {
      log.warn("could not hand leadership over before stopping ({}); the others elect a leader", e.getMessage());
    }
  }

  /**
   * Waits until the server has closed its port and every connection, or has stopped. Armeria
   * completes a stop only once its acceptor threads have also waited out Netty's two-second quiet
   * period, which every stop (and every test that starts an agent) paid; nothing is served once
   * the port and the connections are closed. HTTP/2 connections are drained ({@link
   * Http2Connections}); idle HTTP/1 ones are closed at once ({@link Http1Connections}).
   */
  private void awaitClosed(CompletableFuture<Void> stopping) {
    long deadline = System.nanoTime() + STOP_TIMEOUT.toNanos();
    awaitUntil(() -> server.activePorts().isEmpty(), stopping, deadline);
    threads.stopAccepting();
    awaitUntil(() -> server.numConnections() == 0, stopping, deadline);
  }

  private static void awaitUntil(BooleanSupplier done, CompletableFuture<Void> stopping, long deadline) {
    while (!stopping.isDone() && !done.getAsBoolean() && System.nanoTime() < deadline) {
      LockSupport.parkNanos(PORT_POLL.toNanos());
    }
  }

  private static String seconds(long nanos) {
    return String.format(java.util.Locale.ROOT, "%.2f s", nanos / 1e9);
  }

  /** Ends the server's I/O threads once its connections are closed ({@link ServerThreads}). */
  private void stopEventLoops() {
    try {
      if (!threads.shutdown(EVENT_LOOPS_TIMEOUT)) {
        log.warn("the server's I/O threads did not end within {}", EVENT_LOOPS_TIMEOUT);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Configures and starts an {@link Agent}. */
  public static final class Builder {
    private static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofSeconds(15);
    private static final Duration TYPE_SYNC_TIMEOUT = Duration.ofSeconds(30);
    /** How long a member the cluster added may take to hear so from the leader. */
    private static final Duration JOIN_HEARD = Duration.ofSeconds(30);
    private static final Duration JOIN_POLL = Duration.ofMillis(20);

    private String host = "127.0.0.1";
    private int port = 8500;
    private Consumer<Registry> types = registry -> {};
    private Consumer<Manager> controllers = manager -> {};
    private Backend backend;
    private Clock clock = Clock.systemUTC();
    private OpenTelemetry openTelemetry;
    private Ticker ticker = Ticker.system();
    private ServiceLimits limits = ServiceLimits.DEFAULT;
    private int maxRequestBytes = 4 << 20;
    private boolean acls = true;
    private TlsFiles tls;
    private int maxConnections;
    private int maxConnectionsPerClient;
    private Duration idleTimeout = DEFAULT_IDLE_TIMEOUT;
    private boolean metricsAcl;
    /** Watches one client may hold open; 0: no limit. */
    private int maxWatchesPerClient;
    /** Requests per second per client; 0: no limit. */
    private double clientRate;
    private int clientBurst;
    private Path pluginDir;
    private boolean replaceTypeSet;
    private String shardGroup;
    private RaftConfig raft;
    private Joiner joiner;
    private Limits storeLimits = Limits.DEFAULT;

    private Builder() {}

    /** The address to listen on (default 127.0.0.1). */
    public Builder host(String host) {
      this.host = Objects.requireNonNull(host, "host");
      return this;
    }

    /** The port to listen on (default 8500; 0 picks a free one). */
    public Builder port(int port) {
      if (port < 0 || port > 65535) {
        throw new IllegalArgumentException("port must be within 0..65535, was " + port);
      }
      this.port = port;
      return this;
    }

    /** Registers the types the agent serves. */
    public Builder types(Consumer<Registry> types) {
      this.types = Objects.requireNonNull(types, "types");
      return this;
    }

    /** Registers the controllers the agent runs (besides its own, such as the cascade). */
    public Builder controllers(Consumer<Manager> controllers) {
      this.controllers = Objects.requireNonNull(controllers, "controllers");
      return this;
    }

    /**
     * A durable store, replicated with Raft, that the agent opens at {@link #start()} and closes:
     * one member of its own ({@code RaftConfig.of(node, dataDir, raftPort, Map.of())}) or of the
     * cluster the config's peers name. See docs/storage.md. {@link #start()} throws an {@link
     * java.io.UncheckedIOException} or {@link IllegalStateException} saying why a data directory
     * cannot be used.
     */
    public Builder raft(RaftConfig config) {
      this.raft = Objects.requireNonNull(config, "config");
      this.backend = null;
      return this;
    }

    /**
     * A durable store whose member {@linkplain RaftConfig#joining() joins} a running cluster, and
     * how it asks to be added. When the member is not in the cluster yet (its data directory is
     * new), {@link #start()} starts it, calls {@code joiner} and waits until it has heard it was
     * added, before serving; afterwards it restarts like any member.
     */
    public Builder raft(RaftConfig config, Joiner joiner) {
      raft(config);
      this.joiner = Objects.requireNonNull(joiner, "joiner");
      return this;
    }

    /** The bounds of the in-memory store the agent creates when given neither a backend nor {@link #raft}. */
    public Builder storeLimits(Limits limits) {
      this.storeLimits = Objects.requireNonNull(limits, "limits");
      return this;
    }

    /** The storage backend (default: a new in-memory one). The agent closes it. */
    public Builder backend(Backend backend) {
      this.backend = Objects.requireNonNull(backend, "backend");
      this.raft = null;
      return this;
    }

    /** The clock that stamps statuses (default: the system clock). */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /**
     * Traces with {@code openTelemetry}: a span per gRPC call (continuing the caller's trace), and
     * for the agent's controllers a span per reconcile in the trace of the write whose watch event
     * caused it, with the reconciler's own calls inside. Default: an SDK configured by the standard
     * {@code OTEL_*} variables when they ask for traces ({@code OTEL_TRACES_EXPORTER}, {@code
     * OTEL_EXPORTER_OTLP_ENDPOINT}), otherwise no tracing.
     */
    public Builder openTelemetry(OpenTelemetry openTelemetry) {
      this.openTelemetry = Objects.requireNonNull(openTelemetry, "openTelemetry");
      return this;
    }

    /** The ticker of the controllers' delays, backoff and resync (a ManualTicker in tests). */
    public Builder ticker(Ticker ticker) {
      this.ticker = Objects.requireNonNull(ticker, "ticker");
      return this;
    }

    /** Resource size and page limits. */
    public Builder limits(ServiceLimits limits) {
      this.limits = Objects.requireNonNull(limits, "limits");
      return this;
    }

    /** The largest request the server reads (default 4 MiB); larger ones get RESOURCE_EXHAUSTED. */
    public Builder maxRequestBytes(int maxRequestBytes) {
      if (maxRequestBytes < 1024) {
        throw new IllegalArgumentException("maxRequestBytes must be at least 1024, was " + maxRequestBytes);
      }
      this.maxRequestBytes = maxRequestBytes;
      return this;
    }

    /**
     * Whether requests need a token and are checked against its policies (default true: ACLs
     * on). Off in {@code agent -dev} and in tests that want open access. See docs/security.md.
     */
    public Builder acls(boolean acls) {
      this.acls = acls;
      return this;
    }

    /**
     * Serve HTTPS only, with the certificate and key in {@code files}: gRPC, the HTTP/JSON gateway
     * and {@code /metrics} alike. When {@code files} has a {@linkplain TlsFiles#trustedCa() trusted
     * CA}, every client must present a certificate signed by it (mutual TLS). Null (the default):
     * plaintext. The agent's own controllers use an in-process transport either way. The files are
     * read by {@link #start()}, which throws an {@link IllegalArgumentException} naming a file it
     * cannot use.
     */
    public Builder tls(TlsFiles files) {
      this.tls = files;
      return this;
    }

    /**
     * The most client connections open at once (default: what the process's file-descriptor limit
     * leaves after a fifth, at least 256, for the store and the JVM). Connections past it are
     * closed on arrival with a reset; open ones are untouched. See docs/security.md.
     */
    public Builder maxConnections(int maxConnections) {
      if (maxConnections < 1) {
        throw new IllegalArgumentException("maxConnections must be at least 1, was " + maxConnections);
      }
      this.maxConnections = maxConnections;
      return this;
    }

    /**
     * The most connections open at once from one client address (default 512, or {@link
     * #maxConnections} when lower); the excess is closed on arrival like past {@link #maxConnections}.
     */
    public Builder maxConnectionsPerClient(int maxConnectionsPerClient) {
      if (maxConnectionsPerClient < 1) {
        throw new IllegalArgumentException(
            "maxConnectionsPerClient must be at least 1, was " + maxConnectionsPerClient);
      }
      this.maxConnectionsPerClient = maxConnectionsPerClient;
      return this;
    }

    /**
     * How long a connection with no request in progress stays open (default 15 s). A connection
     * carrying an open watch (a gRPC stream, server-sent events) is never idle.
     */
    public Builder idleTimeout(Duration idleTimeout) {
      if (idleTimeout.isNegative() || idleTimeout.isZero()) {
        throw new IllegalArgumentException("idleTimeout must be positive, was " + idleTimeout);
      }
      this.idleTimeout = idleTimeout;
      return this;
    }

    /**
     * Caps the watches one client (its token, or its address without one) holds open at once; one
     * past it is refused with {@code RESOURCE_EXHAUSTED} (HTTP 429). Default: no cap.
     */
    public Builder maxWatchesPerClient(int watches) {
      if (watches < 1) {
        throw new IllegalArgumentException("maxWatchesPerClient must be at least 1, was " + watches);
      }
      this.maxWatchesPerClient = watches;
      return this;
    }

    /**
     * Makes {@code /metrics} need a token with {@code operator:read} ({@code Authorization: Bearer})
     * when ACLs are on; by default it needs none, like the health probes.
     */
    public Builder metricsAcl(boolean required) {
      this.metricsAcl = required;
      return this;
    }

    /**
     * Limits the API requests of each client (its token, or its address without one) to {@code
     * perSecond} on average and {@code burst} at once; a request over it is refused with {@code
     * RESOURCE_EXHAUSTED} (HTTP 429) and a {@code Retry-After}. Default: no limit.
     */
    public Builder clientRateLimit(double perSecond, int burst) {
      if (!(perSecond > 0) || burst < 1) {
        throw new IllegalArgumentException(
            "clientRateLimit needs a rate above 0 and a burst of at least 1, was " + perSecond + " and " + burst);
      }
      this.clientRate = perSecond;
      this.clientBurst = burst;
      return this;
    }

    /**
     * Loads the {@link SetpointPlugin}s of every jar in {@code dir} (see docs/plugins.md): their
     * types are registered with the agent's, their controllers run with its own. {@link #start()}
     * throws an {@link IllegalStateException} naming a jar or plugin it cannot use.
     */
    public Builder plugins(Path dir) {
      this.pluginDir = Objects.requireNonNull(dir, "dir");
      return this;
    }

    /**
     * Record this agent's compiled and plugin types as the cluster's even when it lacks some that
     * the cluster recorded (default false: such an agent refuses to start). For an operator who
     * removed a type or plugin on purpose; see docs/plugins.md.
     */
    public Builder replaceTypeSet(boolean replaceTypeSet) {
      this.replaceTypeSet = replaceTypeSet;
      return this;
    }

    /**
     * Makes the agent's manager a member of the shard group {@code name}, so that its SHARDED
     * controllers (its own and its plugins') split their keys with the other members of the group,
     * each caching and reconciling only its share (see docs/controllers.md, "Several processes at
     * once: sharding"). The member is named after the Raft node, or the host and process without
     * one. Without a group, registering a SHARDED controller fails.
     *
     * @throws IllegalArgumentException when {@code name} is not 1 to 30 of [-a-z0-9]
     */
    public Builder shardGroup(String name) {
      Sharding.named(name); // checks the name now, not at start
      this.shardGroup = name;
      return this;
    }

    private Sharding.Builder shardMember() {
      Sharding.Builder group = Sharding.named(shardGroup);
      if (raft == null) {
        return group;
      }
      try {
        return group.member(raft.nodeName());
      } catch (IllegalArgumentException e) {
        throw new IllegalStateException("-shard-group: the node name " + raft.nodeName()
            + " names this agent's member of the shard group, and " + e.getMessage(), e);
      }
    }

    /** Starts serving; returns once the port is bound. */
    public Agent start() {
      Closer opened = new Closer();
      if (backend != null) {
        opened.add(backend::close); // handed over: the agent closes it, also when it fails to start
      }
      try {
        return start(opened);
      } catch (RuntimeException | Error e) {
        opened.closeAll(e);
        throw e;
      }
    }

    /** The steps of {@link #start()}; whatever it opens goes into {@code opened}. */
    private Agent start(Closer opened) {
      TlsFiles.Loaded tlsMaterial = tls == null ? null : tls.load();
      Registry registry = new Registry();
      CoreTypes.register(registry);
      AclTypes.register(registry);
      types.accept(registry);
      List<SetpointPlugin> plugins = loadPlugins(registry);
      Backend store = backend != null ? backend : opened.add(openStore());
      Replication replication = store instanceof Replication r ? r : null;
      TypeSetCheck.check(registry, store, replaceTypeSet, TYPE_SYNC_TIMEOUT);
      // Types defined at runtime are served from the first request on, as they were before a restart.
      RuntimeTypes runtimeTypes = opened.add(RuntimeTypes.start(registry, store, TYPE_SYNC_TIMEOUT));
      ResourceHandler handler = new ResourceHandler(registry, store, clock, limits);
      PrometheusMeterRegistry meters = AgentMeters.create(opened);
      if (replication != null) {
        AgentMeters.raft(meters, replication);
      }
      OpenTelemetry tracing = openTelemetry != null ? openTelemetry
          : AgentTracing.requested(System.getenv()) ? opened.add(AgentTracing.fromEnvironment(System.getenv())) : null;
      WriteTraces traces = tracing == null ? null : new WriteTraces();
      WatchStreamer streamer = new WatchStreamer(meters, store::revision, traces);
      ResourceGrpcService resources =
          new ResourceGrpcService(handler, streamer, CommonPools.blockingTaskExecutor(), traces);
      AccessControl access = opened.add(acls
          ? AccessControl.enabled(store, handler, clock)
          : AccessControl.disabled(store, handler, clock));
      // The manager is built once the in-process channel it talks through exists, after the server.
      AtomicReference<Manager> startedManager = new AtomicReference<>();
      Controllers controllerApi = new Controllers(startedManager::get, handler);
      HttpGateway gateway =
          new HttpGateway(registry, handler, streamer, controllerApi, access.httpCallers(), maxRequestBytes);
      TypeGrpcService typeService = new TypeGrpcService(registry);
      BindableService[] services = {resources, typeService, new OperatorGrpcService(store, replication, clock),
          new ControllerGrpcService(controllerApi), access.service(), ProtoReflectionServiceV1.newInstance()};
      GrpcService grpc =
          GrpcService.builder()
              .addServices(services)
              .intercept(tracing == null
                  ? new ServerInterceptor[] {access.grpcCallers()}
                  : new ServerInterceptor[] {access.grpcCallers(), new ServerTracing(tracing)})
              // Undecodable or oversized requests: INVALID_ARGUMENT and RESOURCE_EXHAUSTED with a
              // message, not grpc-java's INTERNAL and Armeria's bare UNKNOWN.
              .exceptionHandler(GrpcFailures.of(maxRequestBytes, services))
              // Binary protobuf only: JSON is the HTTP gateway's job, with the canonical mapping.
              .supportedSerializationFormats(GrpcSerializationFormats.PROTO)
              // Methods that wait on the store are @Blocking; the rest (a write while it
              // replicates, type lookups, reflection) never hold a thread.
              .useBlockingTaskExecutor(false)
              .maxRequestMessageLength(maxRequestBytes)
              .build();
      AtomicBoolean ready = new AtomicBoolean();
      long descriptors = ConnectionLimits.descriptorLimit();
      ConnectionLimits connectionLimits = ConnectionLimits.of(maxConnections, maxConnectionsPerClient, descriptors);
      if (maxConnections > ConnectionLimits.forDescriptorLimit(descriptors).total()) {
        log.warn("maxConnections {} leaves too few of this process's {} file descriptors for the store:"
            + " raise the limit (ulimit -n) or lower maxConnections", maxConnections, descriptors);
      }
      ConnectionLimiter limiter = new ConnectionLimiter(connectionLimits, meters, ticker);
      ServerBuilder serverBuilder = Server.builder();
      AtomicBoolean stopping = new AtomicBoolean();
      Http1Connections http1 = new Http1Connections(stopping);
      Http2Connections http2 = new Http2Connections();
      serverBuilder.decorator(http2);
      serverBuilder.decorator(http1);
      AgentMeters.requests(serverBuilder, meters);
      if (maxWatchesPerClient > 0) {
        serverBuilder.decorator(new WatchLimiter(maxWatchesPerClient, meters, access::tokenKey));
      }
      if (clientRate > 0) {
        serverBuilder.decorator(new RequestRateLimiter(clientRate, clientBurst, ticker, meters, access::tokenKey));
      }
      WebUi.bind(serverBuilder);
      if (tlsMaterial == null) {
        serverBuilder.http(new InetSocketAddress(host, port));
      } else {
        ApiTls.configure(serverBuilder, new InetSocketAddress(host, port), tlsMaterial);
      }
      ServerThreads threads = new ServerThreads();
      opened.add(() -> threads.shutdown(Duration.ZERO));
      Server server =
          threads.configure(serverBuilder)
              // The gRPC layer enforces maxRequestBytes with a proper RESOURCE_EXHAUSTED; the
              // HTTP layer only stops what is far beyond it.
              .maxRequestLength(2L * maxRequestBytes)
              .requestTimeout(Duration.ZERO)
              // Armeria's own FlushConsolidationHandler merges only the flushes made while a read is
              // in progress. Write responses complete later, from the store's threads, so each was
              // flushed on its own: a writev per write answered, about half of a busy member's
              // event-loop time. This one merges those too: the responses of a batch of writes
              // leave in one flush per connection, at the end of the event-loop task.
              .childChannelPipelineCustomizer(p -> {
                http2.track(p.channel());
                p.addFirst(new H2cPrefaceGate(H2C_PREFACE_WAIT))
                    .addFirst(new FlushConsolidationHandler(256, true))
                    // Ahead of everything: a connection past the limits is reset before anything reads it.
                    .addFirst(limiter);
              })
              .idleTimeout(idleTimeout)
              // A quiet period of zero turns graceful shutdown off: the requests in progress were
              // aborted, writes among them. A short one lets them finish (up to the timeout).
              .gracefulShutdownTimeout(STOP_QUIET_PERIOD, Duration.ofSeconds(5))
              // Closing a connection at stop waited a second of "drain" after a first GOAWAY. One
              // GOAWAY naming the last stream served is enough: a client's streams past it were
              // never processed, and gRPC clients send them again elsewhere.
              .connectionDrainDuration(Duration.ZERO)
              // A client closing its watch resets the stream, which Armeria's reporter would log every
              // 10 s as an unlogged exception with a stack trace; the services log their own failures.
              .unloggedExceptionsReportInterval(Duration.ZERO)
              .errorHandler(HttpGateway.serverErrorHandler())
              .service(grpc)
              .withRoute(gateway::bind)
              .service("/metrics", (ctx, req) -> metrics(meters, metricsAcl ? access.httpCallers() : null, req))
              .service("/healthz", (ctx, req) -> HttpResponse.of(HttpStatus.OK, MediaType.PLAIN_TEXT_UTF_8, "ok\n"))
              .service("/livez", (ctx, req) -> HttpResponse.of(HttpStatus.OK, MediaType.PLAIN_TEXT_UTF_8, "ok\n"))
              .service("/readyz", (ctx, req) -> readiness(ready.get(), store, replication, startedManager.get()))
              .build();
      try {
        server.start().join();
      } catch (RuntimeException e) {
        throw new IllegalStateException("cannot listen on " + host + ":" + port + ": " + rootMessage(e), e);
      }
      opened.add(() -> server.stop().join());
      String inProcessName = "setpoint-agent-" + UUID.randomUUID();
      io.grpc.Server inProcess = startInProcess(inProcessName, resources, typeService, tracing);
      opened.add(inProcess::shutdownNow);
      SetpointClient local = opened.add(
          SetpointClient.over(tracing == null
              ? InProcessChannelBuilder.forName(inProcessName).build()
              : InProcessChannelBuilder.forName(inProcessName).intercept(ClientTracing.of(tracing)).build(), "in-process"));
      Manager.Builder managerBuilder = Manager.builder()
          .leadership(replication == null ? Leadership.always() : new StoreLeadership(replication))
          .client(local)
          .clock(clock)
          .ticker(ticker)
          .meterRegistry(meters);
      if (tracing != null) {
        managerBuilder.openTelemetry(tracing);
      }
      if (shardGroup != null) {
        managerBuilder.sharding(shardMember());
      }
      Manager manager = managerBuilder.build();
      opened.add(manager);
      startedManager.set(manager);
      manager.register(Cascade.controller());
      controllers.accept(manager);
      for (SetpointPlugin plugin : plugins) {
        plugin.controllers(manager);
        log.info("plugin {} loaded", plugin.name());
      }
      Agent agent = new Agent(server, threads, inProcess, store, registry, manager, local, access, runtimeTypes, stopping, http1, http2);
      log.info("Setpoint agent listening on {}:{} (gRPC, HTTP/JSON under /api){}", host, agent.port(),
          tlsMaterial == null ? "" : tls.mutual() ? " over mutual TLS" : " over TLS");
      log.info("At most {} client connections, {} per client address; idle ones close after {} ms",
          connectionLimits.total(), connectionLimits.perClient(), idleTimeout.toMillis());
      if (clientRate > 0) {
        log.info("At most {} API requests per second per client, {} at once", clientRate, clientBurst);
      }
      manager.start();
      ready.set(true);
      return agent;
    }

    /**
     * The same services on an in-process transport, for the agent's own controllers: no sockets,
     * and an internal identity.
     */
    private static io.grpc.Server startInProcess(
        String name, ResourceGrpcService resources, TypeGrpcService types, OpenTelemetry tracing) {
      ServerInterceptor[] interceptors = tracing == null
          ? new ServerInterceptor[] {CallerAuthorizer.allowAll()}
          : new ServerInterceptor[] {CallerAuthorizer.allowAll(), new ServerTracing(tracing)};
      try {
        return InProcessServerBuilder.forName(name)
            .executor(Executors.newVirtualThreadPerTaskExecutor())
            .addService(ServerInterceptors.intercept(resources, interceptors))
            .addService(ServerInterceptors.intercept(types, interceptors))
            .build()
            .start();
      } catch (IOException e) {
        throw new UncheckedIOException("an in-process server cannot fail to bind", e);
      }
    }


    /** The plugins of {@link #plugins(Path)}, their types registered. */
    private List<SetpointPlugin> loadPlugins(Registry registry) {
      if (pluginDir == null) {
        return List.of();
      }
      try {
        List<SetpointPlugin> plugins = Plugins.load(pluginDir);
        for (SetpointPlugin plugin : plugins) {
          registerTypes(plugin, registry);
        }
        return plugins;
      } catch (IllegalArgumentException e) {
        throw new IllegalStateException(e.getMessage(), e);
      }
    }

    /** The store the agent opens itself: Raft when {@link #raft} was given, else memory. */
    private Backend openStore() {
      if (raft == null) {
        return new MemoryBackend(storeLimits);
      }
      try {
        RaftBackend member = RaftBackend.start(raft);
        if (raft.join() && !member.isMember()) {
          join(member);
        }
        return member;
      } catch (UncheckedIOException e) {
        throw e; // the store's own message names the directory, the damaged file and what to do
      } catch (RuntimeException e) {
        throw new IllegalStateException("cannot open the store in " + raft.dataDir() + ": " + e.getMessage(), e);
      }
    }

    /** Asks to be added, then waits until {@code member} has heard so from the leader; closes it on failure. */
    private void join(RaftBackend member) {
      String address = raft.peers().get(raft.nodeName());
      try {
        if (joiner == null) {
          throw new IllegalStateException("a joining Raft member needs a Joiner: Agent.Builder.raft(config, joiner)");
        }
        log.info("member {} at {} is in no cluster yet: asking to be added", raft.nodeName(), address);
        joiner.requestAdd(raft.nodeName(), address);
        long deadline = System.nanoTime() + JOIN_HEARD.toNanos();
        while (!member.isMember()) {
          if (System.nanoTime() > deadline) {
            throw new IllegalStateException("the cluster added member " + raft.nodeName() + ", but it has not heard from"
                + " the leader within " + JOIN_HEARD.toSeconds() + " s: can the members reach " + address + "?");
          }
          LockSupport.parkNanos(JOIN_POLL.toNanos());
        }
        log.info("member {} joined the cluster", raft.nodeName());
      } catch (RuntimeException e) {
        member.close();
        throw e;
      }
    }

    private static void registerTypes(SetpointPlugin plugin, Registry registry) {
      try {
        plugin.types(registry);
      } catch (RuntimeException e) {
        throw new IllegalArgumentException("plugin " + plugin.name() + " failed to register its types: " + e.getMessage(), e);
      }
    }

    /** The Prometheus page; with {@code callers}, only for a token with operator:read (401 / 403 otherwise). */
    private static HttpResponse metrics(PrometheusMeterRegistry meters, CallerResolver callers, HttpRequest req) {
      if (callers != null) {
        try {
          callers.resolve(req.headers()).require(
              Permission.OPERATOR_READ, Type.getDefaultInstance(), Tenancy.getDefaultInstance(), "");
        } catch (StatusRuntimeException e) {
          return HttpResponse.of(HttpStatus.UNAUTHORIZED, MediaType.PLAIN_TEXT_UTF_8,
              "/metrics needs an ACL token with operator:read (Authorization: Bearer): "
                  + e.getStatus().getDescription() + "\n");
        } catch (PermissionDeniedException e) {
          return HttpResponse.of(HttpStatus.FORBIDDEN, MediaType.PLAIN_TEXT_UTF_8,
              "/metrics needs operator:read, which this token lacks\n");
        }
      }
      return HttpResponse.of(HttpStatus.OK, MediaType.parse("text/plain; version=0.0.4; charset=utf-8"), meters.scrape());
    }

    /**
     * Ready once started, with a store that can take writes (on a replicated store: one that can
     * commit and apply them, see its health), this member in the cluster with a Raft leader known
     * and the caches of the controllers that run here primed, none of them stopped by a failure;
     * otherwise 503 saying what it waits for.
     */
    private static HttpResponse readiness(boolean started, Backend store, Replication replication, Manager manager) {
      Health health = started ? store.health() : Health.failing("starting");
      try {
        List<Replication.Member> members = health.ok() && replication != null ? replication.members() : List.of();
        if (health.ok() && replication != null && members.stream().noneMatch(m -> m.name().equals(replication.nodeName()))) {
          health = Health.failing("this member is not in the cluster it knows of: it was removed (stop it), or not added yet");
        } else if (health.ok() && replication != null && members.stream().noneMatch(Replication.Member::leader)) {
          health = Health.failing("no Raft leader known: a majority of the members must be up and reach each other");
        }
      } catch (StorageException e) {
        health = Health.failing(e.getMessage());
      }
      List<String> unprimed = health.ok() && manager != null ? manager.unprimed() : List.of();
      if (!unprimed.isEmpty()) {
        health = Health.failing("the caches of controllers " + String.join(", ", unprimed) + " are not primed yet");
      }
      List<String> stopped = health.ok() && manager != null ? manager.stopped() : List.of();
      if (!stopped.isEmpty()) {
        health = Health.failing("controllers that should run here do not: " + String.join("; ", stopped));
      }
      return health.ok()
          ? HttpResponse.of(HttpStatus.OK, MediaType.PLAIN_TEXT_UTF_8, "ready\n")
          : HttpResponse.of(HttpStatus.SERVICE_UNAVAILABLE, MediaType.PLAIN_TEXT_UTF_8, health.reason() + "\n");
    }

    private static String rootMessage(Throwable e) {
      Throwable root = e;
      while (root.getCause() != null) {
        root = root.getCause();
      }
      return root.getMessage();
    }
  }
}
