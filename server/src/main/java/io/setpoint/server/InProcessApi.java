package io.setpoint.server;

import io.grpc.ManagedChannel;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.opentelemetry.api.OpenTelemetry;
import io.setpoint.client.SetpointClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.UUID;
import java.util.concurrent.Executors;

/**
 * The resource and type services on an in-process transport, and a client over it, for the
 * agent's own controllers and for code embedding the agent: no sockets, and an internal identity.
 */
final class InProcessApi {
  private final io.grpc.Server server;
  private final SetpointClient client;

  private InProcessApi(io.grpc.Server server, SetpointClient client) {
    this.server = server;
    this.client = client;
  }

  /**
   * Starts the server and connects the client; both go into {@code opened}.
   *
   * @param tracing traces the calls both ways, or null
   */
  static InProcessApi start(ResourceGrpcService resources, TypeGrpcService types, OpenTelemetry tracing, Closer opened) {
    String name = "setpoint-agent-" + UUID.randomUUID();
    ServerInterceptor[] interceptors = tracing == null
        ? new ServerInterceptor[] {CallerAuthorizer.allowAll()}
        : new ServerInterceptor[] {CallerAuthorizer.allowAll(), new ServerTracing(tracing)};
    io.grpc.Server server;
    try {
      server = InProcessServerBuilder.forName(name)
          .executor(Executors.newVirtualThreadPerTaskExecutor())
          .addService(ServerInterceptors.intercept(resources, interceptors))
          .addService(ServerInterceptors.intercept(types, interceptors))
          .build()
          .start();
    } catch (IOException e) {
      throw new UncheckedIOException("an in-process server cannot fail to bind", e);
    }
    opened.add(server::shutdownNow);
    ManagedChannel channel = InProcessChannelBuilder.forName(name).build();
    SetpointClient client = opened.add(tracing == null
        ? SetpointClient.over(channel, "in-process")
        : SetpointClient.over(channel, "in-process", tracing));
    return new InProcessApi(server, client);
  }

  /** The client, acting with the agent's own identity. */
  SetpointClient client() {
    return client;
  }

  /** Closes the client, then the server. */
  void close() {
    client.close();
    server.shutdownNow();
  }
}
