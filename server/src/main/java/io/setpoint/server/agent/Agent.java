package io.setpoint.server.agent;

import com.linecorp.armeria.server.Server;
import com.linecorp.armeria.common.grpc.GrpcSerializationFormats;
import com.linecorp.armeria.server.grpc.GrpcService;
import io.grpc.protobuf.services.ProtoReflectionServiceV1;
import io.setpoint.resource.Registry;
import io.setpoint.server.service.CallerAuthorizer;
import io.setpoint.server.service.ResourceGrpcService;
import io.setpoint.server.service.ResourceHandler;
import io.setpoint.server.service.ServiceLimits;
import io.setpoint.server.service.TypeGrpcService;
import io.setpoint.server.service.WatchStreamer;
import io.setpoint.storage.Backend;
import io.setpoint.storage.memory.MemoryBackend;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running Setpoint server: the resource service (gRPC, with server reflection) on one port, over
 * a storage backend, with the types its builder registered.
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

  private final Server server;
  private final Backend backend;
  private final Registry registry;
  private final CountDownLatch stopped = new CountDownLatch(1);

  private Agent(Server server, Backend backend, Registry registry) {
    this.server = server;
    this.backend = backend;
    this.registry = registry;
  }

  /** Starts configuring an agent. */
  public static Builder builder() {
    return new Builder();
  }

  /** The port the agent listens on (useful after asking for port 0). */
  public int port() {
    return server.activeLocalPort();
  }

  /** The types this agent serves. */
  public Registry registry() {
    return registry;
  }

  /** Blocks until {@link #close()} has finished. */
  public void awaitTermination() throws InterruptedException {
    stopped.await();
  }

  /** Ends open watches, stops serving, and closes the store. Idempotent. */
  @Override
  public void close() {
    if (stopped.getCount() == 0) {
      return;
    }
    synchronized (this) {
      if (stopped.getCount() == 0) {
        return;
      }
      backend.close();
      server.stop().join();
      log.info("Setpoint agent stopped");
      stopped.countDown();
    }
  }

  /** Configures and starts an {@link Agent}. */
  public static final class Builder {
    private String host = "127.0.0.1";
    private int port = 8500;
    private Consumer<Registry> types = registry -> {};
    private Backend backend;
    private Clock clock = Clock.systemUTC();
    private ServiceLimits limits = ServiceLimits.DEFAULT;
    private int maxRequestBytes = 4 << 20;

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

    /** The storage backend (default: a new in-memory one). The agent closes it. */
    public Builder backend(Backend backend) {
      this.backend = Objects.requireNonNull(backend, "backend");
      return this;
    }

    /** The clock that stamps statuses (default: the system clock). */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
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

    /** Starts serving; returns once the port is bound. */
    public Agent start() {
      Registry registry = new Registry();
      types.accept(registry);
      Backend store = backend != null ? backend : new MemoryBackend();
      ResourceHandler handler = new ResourceHandler(registry, store, clock, limits);
      GrpcService grpc =
          GrpcService.builder()
              .addService(new ResourceGrpcService(handler, new WatchStreamer()))
              .addService(new TypeGrpcService(registry))
              .addService(ProtoReflectionServiceV1.newInstance())
              .intercept(CallerAuthorizer.allowAll())
              // Binary protobuf only: JSON is the HTTP gateway's job, with the canonical mapping.
              .supportedSerializationFormats(GrpcSerializationFormats.PROTO)
              .useBlockingTaskExecutor(true)
              .maxRequestMessageLength(maxRequestBytes)
              .build();
      Server server =
          Server.builder()
              .http(new InetSocketAddress(host, port))
              // The gRPC layer enforces maxRequestBytes with a proper RESOURCE_EXHAUSTED; the
              // HTTP layer only stops what is far beyond it.
              .maxRequestLength(2L * maxRequestBytes)
              .requestTimeout(Duration.ZERO)
              .gracefulShutdownTimeout(Duration.ZERO, Duration.ofSeconds(5))
              .service(grpc)
              .build();
      try {
        server.start().join();
      } catch (RuntimeException e) {
        store.close();
        throw new IllegalStateException("cannot listen on " + host + ":" + port + ": " + rootMessage(e), e);
      }
      Agent agent = new Agent(server, store, registry);
      log.info("Setpoint agent listening on {}:{} (gRPC)", host, agent.port());
      return agent;
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
