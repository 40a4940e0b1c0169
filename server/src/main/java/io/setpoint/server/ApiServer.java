package io.setpoint.server;

import com.linecorp.armeria.common.grpc.GrpcSerializationFormats;
import com.linecorp.armeria.server.Server;
import com.linecorp.armeria.server.ServerBuilder;
import com.linecorp.armeria.server.grpc.GrpcService;
import io.grpc.BindableService;
import io.grpc.ServerInterceptor;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.handler.flush.FlushConsolidationHandler;
import io.setpoint.api.tls.TlsFiles;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent's port: one server carrying the gRPC services, the HTTP/JSON gateway, the web UI and
 * the health endpoints, with its connection limits, its pipeline tuned for writes answered from
 * the store's threads, and a stop that closes connections as soon as their clients can go.
 */
final class ApiServer {
  /** The agent's log, whose name operators configure and read. */
  private static final Logger log = LoggerFactory.getLogger(Agent.class);
  /** How long stopping waits for the server's port to close. */
  private static final Duration STOP_TIMEOUT = Duration.ofSeconds(10);
  private static final Duration PORT_POLL = Duration.ofMillis(2);
  /** How long a stopping server waits for requests to stop coming before it closes its connections. */
  private static final Duration STOP_QUIET_PERIOD = Duration.ofMillis(20);
  /** How long an upgraded HTTP/2 connection's first response waits for the client's preface at most. */
  private static final Duration H2C_PREFACE_WAIT = Duration.ofSeconds(5);
  /** How long stopping waits for the server's I/O threads to end once every connection is closed. */
  private static final Duration EVENT_LOOPS_TIMEOUT = Duration.ofSeconds(1);

  private final Server server;
  private final ServerThreads threads;
  private final ConnectionLimits connectionLimits;
  /** Set when the stop begins: the server then sends its clients away. */
  private final AtomicBoolean stopping;
  private final Http1Connections http1;
  private final Http2Connections http2;

  private ApiServer(Server server, ServerThreads threads, ConnectionLimits connectionLimits, AtomicBoolean stopping,
      Http1Connections http1, Http2Connections http2) {
    this.server = server;
    this.threads = threads;
    this.connectionLimits = connectionLimits;
    this.stopping = stopping;
    this.http1 = http1;
    this.http2 = http2;
  }

  /**
   * The gRPC services with the callers' interceptors in front: binary protobuf only, failures to
   * decode answered with a status that says why.
   */
  static GrpcService grpc(BindableService[] services, ServerInterceptor[] interceptors, int maxRequestBytes) {
    return GrpcService.builder()
        .addServices(services)
        .intercept(interceptors)
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
  }

  /**
   * Builds the server with the options' address, limits and TLS, binds the routes, and starts it;
   * what it opens goes into {@code opened}.
   *
   * @param tlsMaterial the loaded certificate and key, or null for plaintext
   */
  static ApiServer start(Agent.Builder options, TlsFiles.Loaded tlsMaterial, PrometheusMeterRegistry meters,
      AccessControl access, GrpcService grpc, HttpGateway gateway, HealthEndpoints health, Closer opened) {
    long descriptors = ConnectionLimits.descriptorLimit();
    ConnectionLimits connectionLimits =
        ConnectionLimits.of(options.maxConnections, options.maxConnectionsPerClient, descriptors);
    if (options.maxConnections > ConnectionLimits.forDescriptorLimit(descriptors).total()) {
      log.warn("maxConnections {} leaves too few of this process's {} file descriptors for the store:"
          + " raise the limit (ulimit -n) or lower maxConnections", options.maxConnections, descriptors);
    }
    ConnectionLimiter limiter = new ConnectionLimiter(connectionLimits, meters, options.ticker);
    ServerBuilder serverBuilder = Server.builder();
    AtomicBoolean stopping = new AtomicBoolean();
    Http1Connections http1 = new Http1Connections(stopping);
    Http2Connections http2 = new Http2Connections();
    serverBuilder.decorator(http2);
    serverBuilder.decorator(http1);
    AgentMeters.requests(serverBuilder, meters);
    if (options.maxWatchesPerClient > 0) {
      serverBuilder.decorator(new WatchLimiter(options.maxWatchesPerClient, meters, access::tokenKey));
    }
    if (options.clientRate > 0) {
      serverBuilder.decorator(
          new RequestRateLimiter(options.clientRate, options.clientBurst, options.ticker, meters, access::tokenKey));
    }
    WebUi.bind(serverBuilder);
    InetSocketAddress address = new InetSocketAddress(options.host, options.port);
    if (tlsMaterial == null) {
      serverBuilder.http(address);
    } else {
      ApiTls.configure(serverBuilder, address, tlsMaterial, options.clientCertificatesOptional);
    }
    ServerThreads threads = new ServerThreads();
    opened.add(() -> threads.shutdown(Duration.ZERO));
    threads.configure(serverBuilder)
        // The gRPC layer enforces maxRequestBytes with a proper RESOURCE_EXHAUSTED; the
        // HTTP layer only stops what is far beyond it.
        .maxRequestLength(2L * options.maxRequestBytes)
        .requestTimeout(Duration.ZERO)
        // Armeria's own FlushConsolidationHandler merges only the flushes made while a read is
        // in progress. Write responses complete later, from the store's threads, so each was
        // flushed on its own, a writev per write answered. This one merges those too: the
        // responses of a batch of writes leave in one flush per connection, at the end of the
        // event-loop task.
        .childChannelPipelineCustomizer(p -> {
          http2.track(p.channel());
          p.addFirst(new H2cPrefaceGate(H2C_PREFACE_WAIT))
              .addFirst(new FlushConsolidationHandler(256, true))
              // Ahead of everything: a connection past the limits is reset before anything reads it.
              .addFirst(limiter);
        })
        .idleTimeout(options.idleTimeout)
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
        .withRoute(gateway::bind);
    health.bind(serverBuilder);
    Server server = serverBuilder.build();
    try {
      server.start().join();
    } catch (RuntimeException e) {
      throw new IllegalStateException(
          "cannot listen on " + options.host + ":" + options.port + ": " + rootMessage(e), e);
    }
    opened.add(() -> server.stop().join());
    return new ApiServer(server, threads, connectionLimits, stopping, http1, http2);
  }

  /** The port the server listens on. */
  int port() {
    return server.activeLocalPort();
  }

  /** The limits on client connections it applies. */
  ConnectionLimits connectionLimits() {
    return connectionLimits;
  }

  /**
   * Begins the stop: closes the port, closes idle HTTP/1 connections and drains HTTP/2 ones
   * ({@link Http1Connections}, {@link Http2Connections}), so clients move elsewhere. Completes once
   * Armeria's stop does; {@link #awaitClosed} waits for less.
   */
  CompletableFuture<Void> beginStop() {
    stopping.set(true);
    CompletableFuture<Void> serverStopped = server.stop();
    http1.closeIdle();
    http2.drain();
    return serverStopped;
  }

  /**
   * Waits until the server has closed its port and every connection, or has stopped. Armeria
   * completes a stop only once its acceptor threads have also waited out Netty's two-second quiet
   * period, which every stop (and every test that starts an agent) paid; nothing is served once
   * the port and the connections are closed.
   */
  void awaitClosed(CompletableFuture<Void> serverStopped) {
    long deadline = System.nanoTime() + STOP_TIMEOUT.toNanos();
    awaitUntil(() -> server.activePorts().isEmpty(), serverStopped, deadline);
    threads.stopAccepting();
    awaitUntil(() -> server.numConnections() == 0, serverStopped, deadline);
  }

  private static void awaitUntil(BooleanSupplier done, CompletableFuture<Void> serverStopped, long deadline) {
    while (!serverStopped.isDone() && !done.getAsBoolean() && System.nanoTime() < deadline) {
      LockSupport.parkNanos(PORT_POLL.toNanos());
    }
  }

  /** Ends the server's I/O threads once its connections are closed ({@link ServerThreads}). */
  void stopEventLoops() {
    try {
      if (!threads.shutdown(EVENT_LOOPS_TIMEOUT)) {
        log.warn("the server's I/O threads did not end within {}", EVENT_LOOPS_TIMEOUT);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static String rootMessage(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null) {
      root = root.getCause();
    }
    return root.getMessage();
  }
}
